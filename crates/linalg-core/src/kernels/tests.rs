//! Unit tests of the kernels against plain loops.

use super::*;
use ndarray::{Array2, ShapeBuilder};

fn m(rows: usize, cols: usize, seed: usize) -> Array2<f64> {
    Array2::from_shape_fn((rows, cols).f(), |(i, j)| {
        (((i * 31 + j * 17 + seed * 7) % 23) as f64 - 11.0) / 7.0
    })
}

fn owned(a: &Array2<f64>) -> Owned {
    Owned::from_view(a.view())
}

fn close(a: &Array2<f64>, b: &Array2<f64>) {
    assert_eq!(a.dim(), b.dim());
    for (x, y) in a.iter().zip(b.iter()) {
        assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{x} vs {y}");
    }
}

#[test]
fn from_view_handles_every_layout() {
    let c_order = Array2::from_shape_fn((70, 45), |(i, j)| (i * 1000 + j) as f64);
    let f_order = Array2::from_shape_fn((70, 45).f(), |(i, j)| (i * 1000 + j) as f64);
    let strided = c_order.slice(ndarray::s![..;2, 1..;3]);
    for v in [c_order.view(), f_order.view(), strided, c_order.t()] {
        let o = Owned::from_view(v);
        assert_eq!(o.clone().into_array(), v.to_owned());
        assert_eq!((o.rows(), o.cols()), v.dim());
    }
}

#[test]
fn from_array_takes_column_major_buffers_and_copies_the_rest() {
    let f_order = Array2::from_shape_fn((70, 45).f(), |(i, j)| (i * 1000 + j) as f64);
    let ptr = f_order.as_ptr();
    let expect = f_order.clone();
    let o = Owned::from_array(f_order);
    assert_eq!(o.data().as_ptr(), ptr, "column-major input must not be copied");
    assert_eq!(o.into_array(), expect);
    let c_order = Array2::from_shape_fn((70, 45), |(i, j)| (i * 1000 + j) as f64);
    // Column-major but starting at an offset (columns 5.. of an F array).
    let mut shifted = Array2::from_shape_fn((70, 50).f(), |(i, j)| (i * 1000 + j) as f64 - 5.0);
    shifted.slice_collapse(ndarray::s![.., 5..]);
    for a in [c_order.clone(), c_order.t().to_owned(), shifted] {
        let expect = a.clone();
        let o = Owned::from_array(a);
        assert_eq!((o.rows(), o.cols()), expect.dim());
        assert_eq!(o.into_array(), expect);
    }
}

/// `C ← C·G` by row panels against a plain triple loop, for heights
/// below, at and across the panel size: each entry is a q-term dot
/// product, each computation within `q·u·Σ|c_ik||g_kj|` of the exact one
/// (u = 2⁻⁵³), so they differ by at most twice that.
#[test]
fn right_multiply_in_place_matches_a_plain_loop() {
    for (rows, q) in [(1, 3), (7, 1), (512, 6), (1300, 9)] {
        let c = m(rows, q, 3);
        let g = m(q, q, 8);
        let mut o = owned(&c);
        let mut fl = Flops::default();
        gemm_right_in_place(&mut fl, o.as_mut(), owned(&g).as_ref());
        assert_eq!(fl.0, (2 * rows * q * q) as u64);
        let got = o.into_array();
        for i in 0..rows {
            for j in 0..q {
                let (mut exact, mut abs) = (0.0, 0.0);
                for k in 0..q {
                    exact += c[[i, k]] * g[[k, j]];
                    abs += (c[[i, k]] * g[[k, j]]).abs();
                }
                let tol = 2.0 * q as f64 * f64::EPSILON / 2.0 * abs;
                assert!((got[[i, j]] - exact).abs() <= tol, "({i}, {j}) of {rows}×{q}");
            }
        }
    }
}

/// The DGEMV shortcuts of `gemm` (n = 1; m = 1 with a column operand)
/// against ndarray's product, for every transposition and alpha/beta.
#[test]
fn gemm_vector_shortcuts_match_the_general_product() {
    let (k, mm) = (9, 5);
    for (ta, tb) in [(Op::N, Op::N), (Op::T, Op::N), (Op::T, Op::T), (Op::N, Op::T)] {
        for (rows_out, cols_out) in [(mm, 1), (1, mm), (mm, 3)] {
            let a = if ta == Op::N {
                m(rows_out, k, 1)
            } else {
                m(k, rows_out, 1)
            };
            let b = if tb == Op::N {
                m(k, cols_out, 2)
            } else {
                m(cols_out, k, 2)
            };
            let c0 = m(rows_out, cols_out, 3);
            let opa = if ta == Op::N { a.clone() } else { a.t().to_owned() };
            let opb = if tb == Op::N { b.clone() } else { b.t().to_owned() };
            let want = opa.dot(&opb) * 1.5 - &c0 * 0.5;
            let mut c = owned(&c0);
            gemm(
                &mut Flops::default(),
                1.5,
                owned(&a).as_ref(),
                ta,
                owned(&b).as_ref(),
                tb,
                -0.5,
                c.as_mut(),
            );
            close(&c.into_array(), &want);
        }
    }
}

/// `Aᵀx` on a matrix large enough for the streaming dot-product kernel
/// (through gemv and through gemm's single-column path), on 1 and 2
/// threads, against a plain loop; with beta ≠ 0 and an odd row count.
#[test]
fn streaming_transposed_products_match_a_plain_loop() {
    let (k, n) = (1027, 1100);
    assert!(super::blas2::streams(&MatRef::new(&vec![0.0; k * n], k, n, k)));
    let a = Owned::from_fn(k, n, |i, j| ((i * 13 + j * 7) % 17) as f64 / 17.0 - 0.4);
    let x: Vec<f64> = (0..k).map(|i| (i as f64 * 0.01).sin()).collect();
    let y0: Vec<f64> = (0..n).map(|j| j as f64 * 0.5).collect();
    let want: Vec<f64> = (0..n)
        .map(|j| 1.5 * (0..k).map(|i| a.at(i, j) * x[i]).sum::<f64>() - 0.25 * y0[j])
        .collect();
    let before = crate::threads::blas_threads();
    for threads in [1, 2] {
        crate::threads::set_blas_threads(threads);
        let mut y = y0.clone();
        gemv(&mut Flops::default(), 1.5, a.as_ref(), Op::T, &x, -0.25, &mut y);
        let xm = Owned::from_fn(k, 1, |i, _| x[i]);
        let mut c = Owned::from_fn(n, 1, |j, _| y0[j]);
        gemm(
            &mut Flops::default(),
            1.5,
            a.as_ref(),
            Op::T,
            xm.as_ref(),
            Op::N,
            -0.25,
            c.as_mut(),
        );
        for j in 0..n {
            let tol = 1e-13 * (1.0 + want[j].abs()) * k as f64;
            assert!((y[j] - want[j]).abs() <= tol, "gemv, {threads} threads, column {j}");
            assert!(
                (c.at(j, 0) - want[j]).abs() <= tol,
                "gemm, {threads} threads, column {j}"
            );
        }
    }
    crate::threads::set_blas_threads(before);
}

/// The single-row shortcut with `ta = N` reads op(A)'s row with stride
/// ld: take the row from inside a taller matrix (ld = 3).
#[test]
fn gemm_single_row_of_a_strided_operand() {
    let (k, n) = (7, 4);
    let a = m(3, k, 6);
    let b = m(k, n, 7);
    let want = a.slice(ndarray::s![1..2, ..]).dot(&b);
    let mut c = Owned::zeros(1, n);
    let oa = owned(&a);
    gemm(
        &mut Flops::default(),
        1.0,
        oa.as_ref().sub(1, 0, 1, k),
        Op::N,
        owned(&b).as_ref(),
        Op::N,
        0.0,
        c.as_mut(),
    );
    close(&c.into_array(), &want);
}

/// trmm / trsm with a single right-hand column (left) or row (right)
/// take the BLAS-2 path; compare with ndarray on a strided block.
#[test]
fn triangular_vector_shortcuts_match() {
    let n = 6;
    let mut t = m(n, n, 4);
    for i in 0..n {
        t[[i, i]] = 3.0 + i as f64;
        for j in 0..i {
            t[[i, j]] = 0.0;
        }
    }
    let tt = owned(&t);
    for op in [Op::N, Op::T] {
        let opt = if op == Op::N { t.clone() } else { t.t().to_owned() };
        // Left, one column.
        let x = m(n, 1, 5);
        let mut b = owned(&x);
        trmm(
            &mut Flops::default(),
            Side::Left,
            Tri::Upper,
            op,
            Diag::NonUnit,
            2.0,
            tt.as_ref(),
            b.as_mut(),
        );
        close(&b.clone().into_array(), &(opt.dot(&x) * 2.0));
        trsm(
            &mut Flops::default(),
            Side::Left,
            Tri::Upper,
            op,
            Diag::NonUnit,
            0.5,
            tt.as_ref(),
            b.as_mut(),
        );
        close(&b.into_array(), &x);
        // Right, one row of a 3×n block (row stride = ld = 3).
        let y = m(3, n, 6);
        let mut b = owned(&y);
        // The same right-side call of DTRMM then DTRSM on the first row.
        type Triangular = fn(&mut Flops, Side, Tri, Op, Diag, f64, MatRef<'_>, MatMut<'_>);
        let on_row0 = |routine: Triangular, b: &mut Owned| {
            routine(
                &mut Flops::default(),
                Side::Right,
                Tri::Upper,
                op,
                Diag::NonUnit,
                -1.0,
                tt.as_ref(),
                b.as_mut().sub(0, 0, 1, n),
            )
        };
        on_row0(trmm, &mut b);
        let got = b.clone().into_array();
        close(
            &got.slice(ndarray::s![0..1, ..]).to_owned(),
            &(y.slice(ndarray::s![0..1, ..]).dot(&opt) * -1.0),
        );
        close(
            &got.slice(ndarray::s![1.., ..]).to_owned(),
            &y.slice(ndarray::s![1.., ..]).to_owned(),
        );
        on_row0(trsm, &mut b);
        close(&b.into_array(), &y);
    }
}

/// The paths that stay on the calling thread (small gemv and ger, a 1×1
/// syrk, a 1×1 triangle) against ndarray, with alpha and beta ≠ 1.
#[test]
fn serial_small_paths_match_ndarray() {
    let (rows, cols) = (7, 4);
    let a = m(rows, cols, 1);
    for (ta, xlen, ylen) in [(Op::N, cols, rows), (Op::T, rows, cols)] {
        let opa = if ta == Op::N { a.clone() } else { a.t().to_owned() };
        let x = m(xlen, 1, 2);
        let y0 = m(ylen, 1, 3);
        let mut y: Vec<f64> = y0.iter().copied().collect();
        gemv(
            &mut Flops::default(),
            1.5,
            owned(&a).as_ref(),
            ta,
            x.as_slice_memory_order().unwrap(),
            -0.5,
            &mut y,
        );
        let want = opa.dot(&x) * 1.5 - &y0 * 0.5;
        close(&Array2::from_shape_vec((ylen, 1), y).unwrap(), &want);
    }
    // ger
    let (x, y) = (m(rows, 1, 4), m(cols, 1, 5));
    let mut g = owned(&a);
    ger(
        &mut Flops::default(),
        -2.0,
        x.as_slice_memory_order().unwrap(),
        y.as_slice_memory_order().unwrap(),
        g.as_mut(),
    );
    close(&g.into_array(), &(&a - &(x.dot(&y.t()) * 2.0)));
    // syrk with one output entry: ‖column‖² (ta = T) or ‖row‖² (ta = N,
    // read with stride ld from inside a taller block).
    let col = m(rows, 1, 6);
    let mut c = owned(&m(1, 1, 7));
    syrk(&mut Flops::default(), 2.0, owned(&col).as_ref(), Op::T, 3.0, c.as_mut());
    let want = 2.0 * col.iter().map(|v| v * v).sum::<f64>() + 3.0 * m(1, 1, 7)[[0, 0]];
    close(&c.into_array(), &Array2::from_elem((1, 1), want));
    let block = owned(&a);
    let mut c = owned(&m(1, 1, 7));
    syrk(
        &mut Flops::default(),
        1.0,
        block.as_ref().sub(2, 0, 1, cols),
        Op::N,
        0.0,
        c.as_mut(),
    );
    let want = a.row(2).iter().map(|v| v * v).sum::<f64>();
    close(&c.into_array(), &Array2::from_elem((1, 1), want));
    // 1×1 triangles: products and solves on either side, unit or not.
    let t = owned(&Array2::from_elem((1, 1), 4.0));
    for diag in [Diag::Unit, Diag::NonUnit] {
        let d = if diag == Diag::Unit { 1.0 } else { 4.0 };
        for (side, b0) in [(Side::Left, m(1, 3, 8)), (Side::Right, m(5, 1, 9))] {
            let mut b = owned(&b0);
            trmm(
                &mut Flops::default(),
                side,
                Tri::Upper,
                Op::N,
                diag,
                -1.5,
                t.as_ref(),
                b.as_mut(),
            );
            close(&b.clone().into_array(), &(&b0 * (-1.5 * d)));
            trsm(
                &mut Flops::default(),
                side,
                Tri::Upper,
                Op::T,
                diag,
                2.0,
                t.as_ref(),
                b.as_mut(),
            );
            close(&b.into_array(), &(&b0 * (-3.0)));
        }
    }
}
