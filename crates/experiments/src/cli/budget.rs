//! What a fit will need in memory, estimated before anything is allocated,
//! so that `nn fit --hidden 1000000` is refused with the need, what the
//! machine has and the flag that would reduce it — not aborted by the
//! allocator (`memory allocation of 8000000000000 bytes failed`) or
//! panicked on an overflowing size.
//!
//! The estimate counts the large arrays only, in 8-byte floats (4 for an
//! `A` stored in f32), with every product checked:
//!
//! | array | size | when |
//! |---|---|---|
//! | hidden matrix `A` | K × n | always (the solver's copy, or the batch fit's) |
//! | `B = (A⁺_λ)ᵀ` | K × n | Orig., R-Inv, Li et al., Alg. 1 |
//! | a second `A` | K × n | least squares (LAPACK works on a copy) |
//! | the n × n factor or Gram matrix | n² (×2 for the batch ridge and R-Inv) | all but least squares |
//! | hidden outputs on the test file | K_test × n | evaluation after the fit |
//! | the training features, kept to grow | K × N | incremental fits |
//!
//! The deep network (`--model dfnn`, widths `n_1, …, n_L` with the output
//! layer, `W` weights) needs instead:
//!
//! | array | size | when |
//! |---|---|---|
//! | activations and back-propagated errors | 2·K·Σn_ℓ | always |
//! | the same for one minibatch of B rows (and a shorter last one) | 2·2·B·Σn_ℓ | bling, ig |
//! | weights, gradients, L-BFGS pairs (m = 10) and work vectors | W·(2m + 4) | always |
//! | two layers' outputs on the test file | 2·K_test·max n_ℓ | evaluation after the fit |
//! | `Z = [N_L, 1]` and the Gram matrix of its columns (ρ > 0), or LAPACK's copy of `Z` (ρ = 0) | K·(n_L+1) + (n_L+1)², or 2·K·(n_L+1) | b2ld with `--exact-last-layer` (its ridge step) |
//!
//! The BPLS model (`--model bpls`) is estimated by
//! `bpls.rs`'s `fit_bytes` (every layer's outputs, a layer step's
//! buffers, the misses' copy for Algorithm 2, the largest matrix a layer
//! step factors; backprop's minibatch buffers).
//!
//! Small terms (targets, biases, node maps) are left out; the estimate is a
//! lower bound on the peak, close to it for large fits.

use super::error::CliError;
pub use super::model_command::FitSize;
use super::model_command::ModelCommand;
use super::select::SelectArgs;
use crate::datasets::{available_memory_bytes, human_bytes};

/// Bytes of a ridge readout's fit (the ELM's, the BLS's; the first table
/// of the module docs): `A` in `a_bytes` per entry, `copies_of_kn` more
/// K × n arrays in f64 (`B`, or LAPACK's copy), `squares` n × n arrays, the
/// test outputs, and the training features when `keeps_features` (an
/// incremental fit). `None` when the count overflows.
pub(crate) fn readout_bytes(
    size: FitSize,
    a_bytes: u128,
    copies_of_kn: u128,
    squares: u128,
    keeps_features: bool,
) -> Option<u128> {
    let (k, kt, n_in, n) = (
        size.train as u128,
        size.test as u128,
        size.features as u128,
        size.nodes as u128,
    );
    let kn = k.checked_mul(n)?;
    let mut bytes = kn.checked_mul(a_bytes)?;
    bytes = bytes.checked_add(kn.checked_mul(8 * copies_of_kn)?)?;
    bytes = bytes.checked_add(n.checked_mul(n)?.checked_mul(8 * squares)?)?;
    bytes = bytes.checked_add(kt.checked_mul(n)?.checked_mul(8)?)?;
    if keeps_features {
        bytes = bytes.checked_add(k.checked_mul(n_in)?.checked_mul(8)?)?;
    }
    Some(bytes)
}

/// Refuse a fit that needs more memory than the machine has available (or
/// whose size overflows), naming the need, the memory and the flags that
/// reduce it. Without `/proc/meminfo` only overflow is refused.
///
/// # Errors
/// [`CliError::Usage`] with that message.
pub fn check_fit(model: &dyn ModelCommand, select: Option<&SelectArgs>, size: FitSize) -> Result<(), CliError> {
    check_against(model, select, size, available_memory_bytes())
}

/// [`check_fit`] with the available memory given (`None`: unknown).
pub(crate) fn check_against(
    model: &dyn ModelCommand,
    select: Option<&SelectArgs>,
    size: FitSize,
    available: Option<u64>,
) -> Result<(), CliError> {
    let flags = model.smaller_fit_flags();
    let grows = select.is_some_and(|s| s.selection.grow.is_some());
    let flags = if grows {
        format!(
            "{flags}, or a smaller --max-hidden or --step (--grow-until-val may reach {} nodes)",
            size.nodes
        )
    } else {
        flags
    };
    let what = format!("{} training samples and {} nodes", size.train, size.nodes);
    let Some(need) = model.fit_bytes(size) else {
        return Err(CliError::Usage(format!(
            "this fit is too large to size: its memory for {what} overflows a 128-bit byte count; use {flags}"
        )));
    };
    match available {
        Some(have) if need > u128::from(have) => Err(CliError::Usage(format!(
            "this fit needs about {} for {what}, more than the {} of memory available; use {flags}",
            human_bytes(need),
            human_bytes(have)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::FitArgs;

    fn fit_bytes(args: &FitArgs, size: FitSize) -> Option<u128> {
        args.model.command().fit_bytes(size)
    }

    fn check_against(args: &FitArgs, size: FitSize, available: Option<u64>) -> Result<(), CliError> {
        super::check_against(args.model.command(), args.select.as_ref(), size, available)
    }

    fn size(train: usize, test: usize, features: usize, nodes: usize) -> FitSize {
        FitSize {
            train,
            test,
            features,
            nodes,
            outputs: 1,
        }
    }

    fn fit_args(extra: &[&str]) -> FitArgs {
        let base = ["--train", "a.csv", "--test", "b.csv", "--task", "regression"];
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        crate::cli::args::resolve_fit(&args).expect("valid flags")
    }

    /// The ELM with ridge at K = 60000, n = 2000, 10000 test samples: A
    /// (60000·2000), the Gram matrix and its factor (2·2000²), the test
    /// outputs (10000·2000), 8 bytes each — by hand.
    #[test]
    fn ridge_elm_counts_a_two_squares_and_the_test_outputs() {
        let args = fit_args(&["--model", "elm", "--hidden", "2000"]);
        let size = size(60000, 10000, 784, 2000);
        let want = 8 * (60000 * 2000 + 2 * 2000 * 2000 + 10000 * 2000) as u128;
        assert_eq!(fit_bytes(&args, size), Some(want));
    }

    /// An incremental ELM with Alg. 1 keeps B beside A, one n² factor and the
    /// training features.
    #[test]
    fn alg1_adds_b_and_the_training_features() {
        let args = fit_args(&["--model", "elm", "--hidden", "100", "--solver", "alg1"]);
        let size = size(1000, 10, 5, 100);
        let want = 8 * (2 * 1000 * 100 + 100 * 100 + 10 * 100 + 1000 * 5) as u128;
        assert_eq!(fit_bytes(&args, size), Some(want));
    }

    #[test]
    fn a_million_nodes_is_refused_with_the_need_and_the_flag() {
        let args = fit_args(&["--model", "elm", "--hidden", "1000000"]);
        let size = size(60000, 10000, 784, 1_000_000);
        let e = check_against(&args, size, Some(20_000_000_000))
            .err()
            .map(|e| e.to_string());
        let e = e.unwrap_or_default();
        // 16,560 GB, in the unit that fits it.
        assert!(e.contains("this fit needs about 16.6 TB"), "{e}");
        assert!(e.contains("more than the 20.0 GB of memory available"), "{e}");
        assert!(e.contains("--hidden"), "{e}");
        assert!(check_against(&args, size, None).is_ok(), "unknown memory: not refused");
    }

    #[test]
    fn sizes_that_overflow_are_refused_even_without_meminfo() {
        let args = fit_args(&["--model", "elm", "--hidden", "18446744073709551615"]);
        let size = size(100, 100, 3, usize::MAX);
        assert_eq!(fit_bytes(&args, size), None);
        let e = check_against(&args, size, None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("too large to size"), "{e}");
    }

    #[test]
    fn a_bls_in_f32_stores_a_in_half_the_bytes_and_suggests_nothing_it_already_does() {
        let f64_args = fit_args(&["--model", "bls", "--strategy", "chol2"]);
        let f32_args = fit_args(&["--model", "bls", "--strategy", "chol2", "--f32"]);
        let size = size(1000, 0, 4, 100);
        let (Some(b64), Some(b32)) = (fit_bytes(&f64_args, size), fit_bytes(&f32_args, size)) else {
            panic!("sizes fit")
        };
        assert_eq!(b64 - b32, 4 * 1000 * 100);
        let e = check_against(&f32_args, size, Some(1))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("--increments") && !e.contains("--f32"), "{e}");
    }

    /// The deep network 4 → 5 → 3 → 2 (biases) on 100 samples, 10 test
    /// samples: 2·100·(5+3+2) activations and errors, (5·5 + 3·6 + 2·4)
    /// weights times 2·10 + 4, 2·10·5 test outputs — by hand; a minibatch
    /// trainer adds 2·2·B·(5+3+2), and the message names --layers.
    #[test]
    fn a_deep_network_counts_activations_weights_and_test_outputs() {
        let b2ld = fit_args(&["--model", "dfnn", "--layers", "5,3"]);
        let two = FitSize {
            outputs: 2,
            ..size(100, 10, 4, 8)
        };
        let weights = 5 * 5 + 3 * 6 + 2 * 4;
        let want = 8 * (2 * 100 * 10 + weights * 24 + 2 * 10 * 5) as u128;
        assert_eq!(fit_bytes(&b2ld, two), Some(want));
        let bling = fit_args(&[
            "--model",
            "dfnn",
            "--layers",
            "5,3",
            "--trainer",
            "bling",
            "--batch-size",
            "16",
        ]);
        assert_eq!(fit_bytes(&bling, two), Some(want + 8 * 2 * 2 * 16 * 10));
        let huge = fit_args(&["--model", "dfnn", "--layers", "100000,100000"]);
        let e = check_against(&huge, two, Some(1_000_000_000))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("--layers"), "{e}");
        let overflow = fit_args(&["--model", "dfnn", "--layers", "18446744073709551615"]);
        assert_eq!(fit_bytes(&overflow, size(100, 0, usize::MAX, 1)), None);
    }

    /// b2ld's `--exact-last-layer` adds its ridge problem: `Z = [N_L, 1]`
    /// (100·4) and the Gram matrix of its 4 columns (4²), or with
    /// `--lambda 0` LAPACK's copy of `Z` (100·4) — by hand, on the network
    /// of the test above; at --layers 60000 on 80 samples the 60001² Gram
    /// matrix (28.8 GB of the 29.1) is refused on a machine with 24 GB, naming
    /// the flags.
    #[test]
    fn the_exact_last_layer_counts_its_ridge_problem() {
        let two = FitSize {
            outputs: 2,
            ..size(100, 10, 4, 8)
        };
        let base = fit_args(&["--model", "dfnn", "--layers", "5,3"]);
        let (Some(plain), Some(exact), Some(lstsq)) = (
            fit_bytes(&base, two),
            fit_bytes(
                &fit_args(&["--model", "dfnn", "--layers", "5,3", "--exact-last-layer"]),
                two,
            ),
            fit_bytes(
                &fit_args(&[
                    "--model",
                    "dfnn",
                    "--layers",
                    "5,3",
                    "--exact-last-layer",
                    "--lambda",
                    "0",
                ]),
                two,
            ),
        ) else {
            panic!("sizes fit")
        };
        assert_eq!(exact - plain, 8 * (100 * 4 + 4 * 4));
        assert_eq!(lstsq - plain, 8 * (100 * 4 + 100 * 4));
        let wide = fit_args(&["--model", "dfnn", "--layers", "60000", "--exact-last-layer"]);
        let eighty = FitSize {
            outputs: 3,
            ..size(80, 80, 3, 60000)
        };
        let e = check_against(&wide, eighty, Some(24_000_000_000))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("this fit needs about 29.1 GB") && e.contains("or no --exact-last-layer"),
            "{e}"
        );
        let without = fit_args(&["--model", "dfnn", "--layers", "60000"]);
        assert!(check_against(&without, eighty, Some(24_000_000_000)).is_ok());
    }
}
