//! One module per paper: its protocol and its published numbers.

pub mod bls_ridge;
pub mod zhu_wei;

/// The error of a reproduction run: data, model, metric or I/O failures,
/// each with its own message.
pub type ReproError = Box<dyn std::error::Error + Send + Sync>;
