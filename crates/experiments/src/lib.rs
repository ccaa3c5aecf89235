//! # experiments — data, metrics, the papers' protocols and their reports
//!
//! This crate holds what turns models into reproductions of the five
//! papers: dataset loaders (MNIST IDX, CSV, LIBSVM), preprocessing fitted on the
//! training part, metrics (accuracy, sensitivity, precision, MCC, MSE, RMSE,
//! weight and output error), one module per paper with its protocol and its
//! published numbers, and reports (Markdown and CSV with our figures beside the
//! paper's, JSON, SVG plots).
//!
//! [`papers::REGISTRY`] lists the reproductions that exist (`cargo xtask
//! reproduce --list`); [`machine`] describes the machine a report was made on.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use models;

pub mod cli;
pub mod datasets;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod machine;
pub mod metrics;
pub mod papers;
pub mod report;
