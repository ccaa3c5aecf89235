//! Helpers shared by the integration tests: the `nn` binary, the shipped
//! data, temporary directories, the outcome of a run, and data files built
//! byte by byte (IDX headers, gzip).

#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `nn` binary of this build.
pub fn nn() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nn"))
}

/// A shipped data file (`data/…` at the workspace root), as a string.
pub fn data(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(rel)
        .display()
        .to_string()
}

/// A fresh temporary directory (removed when dropped) named after `what`.
pub fn temp_dir(what: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("nn-{what}-"))
        .tempdir()
        .expect("a temporary directory")
}

/// `nn ARGS…`: exit code (`None` when killed by a signal), stdout, stderr.
pub fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (Option<i32>, String, String) {
    let out: Output = nn().args(args).output().expect("run nn");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `nn ARGS…` that must fail cleanly: an exit code other than 0, 101 (a
/// panic) and 134 (an abort), nothing on stdout, and one `nn: error:` line
/// on stderr, which is returned.
pub fn fails<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String) {
    let (code, stdout, stderr) = run(args);
    let code = code.unwrap_or_else(|| panic!("killed by a signal: {stderr}"));
    assert!(![0, 101, 134].contains(&code), "exit code {code}: {stderr}");
    assert!(stdout.is_empty(), "stdout: {stdout}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("nn: error: ")).collect();
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    (code, errors[0].to_string())
}

// Not every test file uses every helper.
#[allow(unused_imports)]
pub use test_support::files::{error_text, gzip, idx_images, idx_labels};

/// `n` IDX images of 2×2 pixels in `dir` (`toy-images-idx3-ubyte` and its
/// labels file), the class (0–3) the brightest pixel; returns the images'
/// path and the labels.
pub fn toy_idx(dir: &std::path::Path, n: u8) -> (std::path::PathBuf, Vec<u8>) {
    let (mut pixels, mut labels) = (vec![], vec![]);
    for i in 0..n {
        let c = i % 4;
        for p in 0..4u8 {
            pixels.push(if p == c {
                200
            } else {
                ((u32::from(i) * 13 + u32::from(p) * 7) % 60) as u8
            });
        }
        labels.push(c);
    }
    let images = dir.join("toy-images-idx3-ubyte");
    std::fs::write(&images, idx_images(u32::from(n), 2, 2, &pixels)).expect("write the images");
    std::fs::write(dir.join("toy-labels-idx1-ubyte"), idx_labels(&labels)).expect("write the labels");
    (images, labels)
}
