//! Checks of the deep networks read from a model file, before anything
//! indexes them (the other models check themselves on load).

use models::dfnn::Dfnn;
use models::mlp::Mlp;
use models::{Persist, Predict};

/// Check a network read from a model file before anything indexes it: at
/// least one layer, every layer with units, each layer's columns the
/// previous layer's width (plus its bias), every weight finite. Returns the
/// numbers of inputs and outputs.
///
/// # Errors
/// What is wrong, in words.
pub fn check_dfnn_network(net: &Dfnn) -> Result<(usize, usize), String> {
    let weights = net.weights();
    if weights.is_empty() {
        return Err("a deep network without layers".into());
    }
    let extra = usize::from(net.bias() == models::dfnn::Bias::Every);
    let mut fan_in: Option<usize> = None;
    for (l, w) in weights.iter().enumerate() {
        let layer = l + 1;
        if w.nrows() == 0 {
            return Err(format!("layer {layer} of the deep network has no units"));
        }
        match fan_in {
            None if w.ncols() <= extra => return Err("the deep network's first layer has no inputs".into()),
            Some(n) if w.ncols() != n + extra => {
                return Err(format!(
                    "layer {layer} of the deep network has {} weight columns for {n} inputs{}",
                    w.ncols(),
                    if extra == 1 { " and a bias" } else { "" }
                ))
            }
            _ => {}
        }
        if w.iter().any(|v| !v.is_finite()) {
            return Err(format!(
                "layer {layer} of the deep network has a weight that is not finite"
            ));
        }
        fan_in = Some(w.nrows());
    }
    Ok((net.n_inputs(), net.n_outputs()))
}

/// Check a network read from a model file before anything indexes it
/// ([`models::Persist::check_invariants`]: layers that chain, finite weights, an
/// injective hidden activation). Returns the numbers of inputs and outputs.
///
/// # Errors
/// What is wrong, in words.
pub fn check_mlp_network(net: &Mlp) -> Result<(usize, usize), String> {
    net.check_invariants()
        .map_err(|e| format!("the BPLS network is inconsistent: {e}"))?;
    Ok((net.n_inputs(), net.n_outputs()))
}
