//! One hidden unit's subproblem in DEC's Step B: the error (5) as a
//! function of `w_j` alone, evaluated in `O(P·n)` from the stored network
//! outputs (Grippo et al., eq. (27)).

use optim::Objective;

use crate::activation::sigmoid;

/// `E_j(w_j) = ½ Σ_p ‖b_p + λ_j g(w_jᵀx̃_p)‖² + τ_w/2 ‖w_j‖²`, with
/// `b_p = φ_{−j}(x_p) − y_p` the residual of the network without unit `j`.
/// It differs from `E(λ, w_1, …, w_j, …, w_N)` by a constant (the other
/// units' regularization and `τ_λ/2‖λ‖²`), so decreases and the acceptance
/// tests (25)–(26) are the same on both.
///
/// One evaluation is one pass over the samples: `t_p = w_jᵀx̃_p`, the
/// sigmoid, the residual and, for the gradient (10), the sum
/// `Σ_p (r_pᵀλ_j) g'(t_p) x̃_p` — `O(P·(n + M))`, no matrix product.
pub(crate) struct NeuronObjective<'a> {
    /// The samples, row-major P×n.
    pub(crate) x: &'a [f64],
    pub(crate) n: usize,
    /// `b = φ_{−j} − Y`, row-major P×M.
    pub(crate) b: &'a [f64],
    /// `λ_j` (M).
    pub(crate) lambda: &'a [f64],
    pub(crate) tau_w: f64,
}

impl NeuronObjective<'_> {
    /// `g(w_jᵀx̃_p)` for every sample into `g` (P).
    pub(crate) fn activations(&self, w: &[f64], g: &mut [f64]) {
        let n = self.n;
        for (gp, row) in g.iter_mut().zip(self.x.chunks_exact(n)) {
            *gp = sigmoid(dot(row, &w[..n]) - w[n]);
        }
    }

    fn regularization(&self, w: &[f64]) -> f64 {
        0.5 * self.tau_w * dot(w, w)
    }
}

impl Objective for NeuronObjective<'_> {
    fn dim(&self) -> usize {
        self.n + 1
    }

    fn value(&mut self, w: &[f64]) -> f64 {
        let (n, m) = (self.n, self.lambda.len());
        let mut sum = 0.0;
        for (row, bp) in self.x.chunks_exact(n).zip(self.b.chunks_exact(m)) {
            let g = sigmoid(dot(row, &w[..n]) - w[n]);
            for (bk, lk) in bp.iter().zip(self.lambda) {
                let r = bk + lk * g;
                sum += r * r;
            }
        }
        0.5 * sum + self.regularization(w)
    }

    fn gradient(&mut self, w: &[f64], grad: &mut [f64]) {
        self.value_and_gradient(w, grad);
    }

    fn value_and_gradient(&mut self, w: &[f64], grad: &mut [f64]) -> f64 {
        let (n, m) = (self.n, self.lambda.len());
        grad.fill(0.0);
        let (gx, gt) = grad.split_at_mut(n);
        let mut sum = 0.0;
        let mut threshold = 0.0;
        for (row, bp) in self.x.chunks_exact(n).zip(self.b.chunks_exact(m)) {
            let g = sigmoid(dot(row, &w[..n]) - w[n]);
            let mut rl = 0.0;
            for (bk, lk) in bp.iter().zip(self.lambda) {
                let r = bk + lk * g;
                sum += r * r;
                rl += r * lk;
            }
            // (10): (r_pᵀλ_j) g'(t_p) x̃_p with g' = g(1 − g), x̃_p = (x_p, −1).
            let c = rl * g * (1.0 - g);
            for (gk, xk) in gx.iter_mut().zip(row) {
                *gk += c * xk;
            }
            threshold -= c;
        }
        gt[0] = threshold;
        for (gk, wk) in grad.iter_mut().zip(w) {
            *gk += self.tau_w * wk;
        }
        0.5 * sum + self.regularization(w)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
