//! The engine shared by Chol-1, Chol-2 and Exg-E: the ridge solution kept
//! through the upper inverse Cholesky factor `F` of `R = AᵀA + λI`
//! (algorithms.md §1; BLS paper Sec. III, Algorithms 4–6).
//!
//! State: `F` (n×n), `G = FᵀAᵀY` (n×M) and `W = F G` (n×M). Appending `H`
//! (K×q):
//!
//! ```text
//! P   = Fᵀ(AᵀH)          D = F P = R⁻¹AᵀH
//! S   = Schur complement  (the three strategies differ only here)
//! F22 = inverse Cholesky factor of S,   F12 = −D F22
//! g   = F22ᵀ (HᵀY − PᵀG),  w = F22 g,   W' = [W − D w; w],  G' = [G; g]
//! ```
//!
//! Flops per append: `2Knq (AᵀH) + 2n²q (P, D) + Kq(q+1) (HᵀH or CᵀC)
//! + nq(q+1) (PᵀP or DᵀD) + [2Knq (C, Chol-2/Exg-E)] + 2q³/3 + 2KqM + 2nqM
//! + 2q²M + nq² + 2nqM`.

use crate::error::Result;
use crate::kernels::{self, Diag, Flops, Op, Owned, Side, Tri};
use crate::ridge::problem::{push_rows, Problem};
use crate::store::GrowMat;

/// How the Schur complement `S` of the appended block is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schur {
    /// Chol-1: `S = HᵀH + λI − PᵀP` (cheapest; cancels for tiny λ).
    Subtract,
    /// Chol-2: `S = CᵀC + λ(I + DᵀD)`, `C = H − A D` (PD under rounding).
    Residual,
    /// Exg-E: `S = CᵀC` (generalized inverse: λ dropped in the update).
    ResidualNoRidge,
}

/// Shared state of the inverse-Cholesky strategies.
#[derive(Clone, Debug)]
pub(crate) struct InvCholRidge {
    pub p: Problem,
    pub f: GrowMat,
    pub g: GrowMat,
    pub w: GrowMat,
    schur: Schur,
}

impl InvCholRidge {
    pub fn new(p: Problem, schur: Schur) -> Result<Self> {
        let mut fl = Flops::default();
        let f = p.initial_inverse_cholesky(&mut fl)?;
        let n = p.n();
        // G = Fᵀ AᵀY, W = F G.
        let mut g = GrowMat::with_row_capacity(n, p.m(), 2 * n);
        p.a.gemm_t(&mut fl, 1.0, p.y.as_ref(), 0.0, g.as_mut());
        kernels::trmm(
            &mut fl,
            Side::Left,
            Tri::Upper,
            Op::T,
            Diag::NonUnit,
            1.0,
            f.as_ref(),
            g.as_mut(),
        );
        let mut w = g.clone();
        kernels::trmm(
            &mut fl,
            Side::Left,
            Tri::Upper,
            Op::N,
            Diag::NonUnit,
            1.0,
            f.as_ref(),
            w.as_mut(),
        );
        let mut p = p;
        p.last_flops = fl.0;
        Ok(Self {
            f: GrowMat::from_ref(f.as_ref(), n),
            g,
            w,
            p,
            schur,
        })
    }

    pub fn append_impl(&mut self, h: Owned) -> Result<()> {
        let (n, q) = (self.p.n(), h.cols());
        let mut fl = Flops::default();
        let fr = self.f.as_ref();
        // P = Fᵀ (AᵀH);  D = F P.
        let mut p = Owned::zeros(n, q);
        self.p.a.gemm_t(&mut fl, 1.0, h.as_ref(), 0.0, p.as_mut());
        kernels::trmm(
            &mut fl,
            Side::Left,
            Tri::Upper,
            Op::T,
            Diag::NonUnit,
            1.0,
            fr,
            p.as_mut(),
        );
        let mut d = p.clone();
        kernels::trmm(
            &mut fl,
            Side::Left,
            Tri::Upper,
            Op::N,
            Diag::NonUnit,
            1.0,
            fr,
            d.as_mut(),
        );
        // S (upper triangle).
        let lambda = self.p.lambda;
        let mut s = match self.schur {
            Schur::Subtract => {
                let mut s = Owned::scaled_identity(q, lambda);
                kernels::syrk(&mut fl, 1.0, h.as_ref(), Op::T, 1.0, s.as_mut());
                kernels::syrk(&mut fl, -1.0, p.as_ref(), Op::T, 1.0, s.as_mut());
                s
            }
            Schur::Residual | Schur::ResidualNoRidge => {
                let mut c = h.clone();
                self.p.a.gemm_n(&mut fl, -1.0, d.as_ref(), 1.0, c.as_mut());
                if self.schur == Schur::Residual {
                    let mut s = Owned::scaled_identity(q, lambda);
                    kernels::syrk(&mut fl, lambda, d.as_ref(), Op::T, 1.0, s.as_mut());
                    kernels::syrk(&mut fl, 1.0, c.as_ref(), Op::T, 1.0, s.as_mut());
                    s
                } else {
                    let mut s = Owned::zeros(q, q);
                    kernels::syrk(&mut fl, 1.0, c.as_ref(), Op::T, 0.0, s.as_mut());
                    s
                }
            }
        };
        crate::inverse_cholesky::inverse_cholesky_in_place(&mut fl, &mut s).map_err(|pivot| {
            self.p
                .not_pd("the Schur complement S of the new block", pivot, n, n + q)
        })?;
        // g = F22ᵀ (HᵀY − PᵀG);  w = F22 g.
        let mut g = Owned::zeros(q, self.p.m());
        kernels::gemm(
            &mut fl,
            1.0,
            h.as_ref(),
            Op::T,
            self.p.y.as_ref(),
            Op::N,
            0.0,
            g.as_mut(),
        );
        kernels::gemm(
            &mut fl,
            -1.0,
            p.as_ref(),
            Op::T,
            self.g.as_ref(),
            Op::N,
            1.0,
            g.as_mut(),
        );
        kernels::trmm(
            &mut fl,
            Side::Left,
            Tri::Upper,
            Op::T,
            Diag::NonUnit,
            1.0,
            s.as_ref(),
            g.as_mut(),
        );
        let mut w = g.clone();
        kernels::trmm(
            &mut fl,
            Side::Left,
            Tri::Upper,
            Op::N,
            Diag::NonUnit,
            1.0,
            s.as_ref(),
            w.as_mut(),
        );
        self.p.check_finite_result(&w, n, n + q, "non-finite new weights")?;
        // W_top −= D w (computed before D is overwritten by F12).
        let mut w_top = Owned::from_ref(self.w.as_ref());
        kernels::gemm(&mut fl, -1.0, d.as_ref(), Op::N, w.as_ref(), Op::N, 1.0, w_top.as_mut());
        self.p
            .check_finite_result(&w_top, n, n + q, "non-finite updated weights")?;
        // F12 = −D F22.
        kernels::trmm(
            &mut fl,
            Side::Right,
            Tri::Upper,
            Op::N,
            Diag::NonUnit,
            -1.0,
            s.as_ref(),
            d.as_mut(),
        );
        // Commit.
        self.w.as_mut().copy_from(w_top.as_ref());
        push_rows(&mut self.w, &w);
        push_rows(&mut self.g, &g);
        self.f.grow_square(n + q);
        self.f.as_mut().sub(0, n, n, q).copy_from(d.as_ref());
        self.f.as_mut().sub(n, n, q, q).copy_from(s.as_ref());
        self.p.a.push_cols(h.as_ref());
        fl.add(n * self.p.m()); // the copy-back sum W_top
        self.p.last_flops = fl.0;
        Ok(())
    }

    pub fn factor_bytes(&self) -> usize {
        self.f.bytes() + self.g.bytes()
    }

    pub fn reserve_factors(&mut self, n: usize) {
        self.f.reserve_square(n);
        self.g.reserve(n, self.p.m());
    }
}

/// Defines a public strategy type around [`InvCholRidge`].
macro_rules! inverse_cholesky_strategy {
    ($(#[$doc:meta])* $name:ident, $schur:expr, $strategy:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            inner: $crate::ridge::inverse_cholesky_ridge::InvCholRidge,
        }

        impl $name {
            /// Start from the first block `a` (K×n₀) with targets `y` (K×M)
            /// and λ > 0: `F` from `dpotrf`/`dtrtri` of `AᵀA + λI`.
            pub fn new(
                a: ::ndarray::ArrayView2<'_, f64>,
                y: ::ndarray::ArrayView2<'_, f64>,
                lambda: f64,
            ) -> $crate::error::Result<Self> {
                Self::with_precision(a, y, lambda, $crate::hidden_store::Precision::F64)
            }

            /// As [`Self::new`], with `A` stored in `precision` (see
            /// [`crate::hidden_store`]). `a` is a view (copied once) or an owned
            /// `Array2`; an owned column-major contiguous `a` (e.g. made with
            /// `Array2::zeros((k, n).f())`) becomes the f64 store without a copy.
            pub fn with_precision<'a>(
                a: impl Into<::ndarray::CowArray<'a, f64, ::ndarray::Ix2>>,
                y: ::ndarray::ArrayView2<'_, f64>,
                lambda: f64,
                precision: $crate::hidden_store::Precision,
            ) -> $crate::error::Result<Self> {
                let p = $crate::ridge::problem::Problem::new($strategy, a.into(), y, lambda, precision)?;
                Ok(Self { inner: $crate::ridge::inverse_cholesky_ridge::InvCholRidge::new(p, $schur)? })
            }

            /// The inverse Cholesky factor `F` (n×n upper, `F Fᵀ = (AᵀA + λI)⁻¹`
            /// for the ridge strategies).
            pub fn factor(&self) -> ::ndarray::ArrayView2<'_, f64> {
                self.inner.f.view()
            }
        }

        impl $crate::ridge::IncrementalRidge for $name {
            fn strategy(&self) -> $crate::ridge::Strategy {
                $strategy
            }
            fn append(&mut self, h: ::ndarray::ArrayView2<'_, f64>) -> $crate::error::Result<()> {
                let h = self.inner.p.check_new_columns(h)?;
                self.inner.append_impl(h)
            }
            fn append_owned(&mut self, h: ::ndarray::Array2<f64>) -> $crate::error::Result<()> {
                let h = self.inner.p.check_new_columns_owned(h)?;
                self.inner.append_impl(h)
            }
            fn weights(&self) -> ::ndarray::ArrayView2<'_, f64> {
                self.inner.w.view()
            }
            fn hidden(&self) -> ::ndarray::CowArray<'_, f64, ::ndarray::Ix2> {
                self.inner.p.a.view()
            }
            fn precision(&self) -> $crate::hidden_store::Precision {
                self.inner.p.a.precision()
            }
            fn nodes(&self) -> usize {
                self.inner.p.n()
            }
            fn lambda(&self) -> f64 {
                self.inner.p.lambda
            }
            fn last_flops(&self) -> u64 {
                self.inner.p.last_flops
            }
            fn reserve(&mut self, additional: usize) {
                let n = self.inner.p.n() + additional;
                self.inner.p.a.reserve_cols(additional);
                self.inner.w.reserve(n, self.inner.p.m());
                self.inner.reserve_factors(n);
            }
            fn memory_bytes(&self) -> usize {
                self.inner.p.bytes() + self.inner.w.bytes() + self.inner.factor_bytes()
            }
            fn clone_box(&self) -> Box<dyn $crate::ridge::IncrementalRidge> {
                Box::new(self.clone())
            }
        }
    };
}
pub(crate) use inverse_cholesky_strategy;
