//! # experiments — data, metrics, the papers' protocols and their reports
//!
//! This crate will hold what turns models into reproductions of the five
//! papers: dataset loaders (MNIST IDX, CSV, LIBSVM), preprocessing fitted on the
//! training part, metrics (accuracy, sensitivity, precision, MCC, MSE, RMSE,
//! weight and output error), one module per paper with its protocol and its
//! published numbers, and reports (Markdown and CSV with our figures beside the
//! paper's, JSON, SVG plots).
//!
//! Nothing is reproduced yet: the foundation issue builds `linalg-core` first.
//! [`papers`] lists the reproductions `cargo xtask reproduce` knows about.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use models;

pub mod cli;
pub mod datasets;
pub mod machine;
pub mod metrics;
pub mod papers;
pub mod report;

/// The reproductions that exist so far, as `(name, description)` pairs.
///
/// `cargo xtask reproduce` runs each of them.
pub fn papers() -> &'static [(&'static str, &'static str)] {
    &[
        ("zhu-wei", "inverse-free ELM (Zhu & Wei): Tables II–V"),
        (
            "bls-ridge",
            "ridge solutions for the incremental BLS (Zhu et al.): Tables II–III, VI and Fig. 1 on MNIST",
        ),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_listed_reproductions_are_the_implemented_ones() {
        let names: Vec<&str> = super::papers().iter().map(|p| p.0).collect();
        assert_eq!(names, ["zhu-wei", "bls-ridge"]);
    }
}
