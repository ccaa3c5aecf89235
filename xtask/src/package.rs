//! The `package` stage of `cargo xtask test` (issue 41): `cargo package` of
//! the four libraries together, each built from its package alone against
//! the others' packages, as crates.io would build them.
//!
//! **Why stale copies are removed first.** Packaged together, the
//! libraries reach each other through a local registry (under the target
//! directory's `package/tmp-registry`), and cargo treats a registry
//! package as immutable, keyed by name and version alone:
//! - it unpacks each `.crate` into `$CARGO_HOME/registry/src/-<hash>/<name>-<version>/`
//!   (the hash being that of the registry's path) once, and uses that
//!   directory as it is whenever its `.cargo-ok` marker is there;
//! - it calls a registry package's build fresh whenever one of that name
//!   and version was built in the target directory before.
//!
//! The same version packaged again with new code (every commit of a
//! contributor, every CI run in the same place) is therefore built against
//! the *previous* run's `decomp-nn-linalg`: CI failed so once a commit
//! added a module to `linalg-core` (`could not find sparse in
//! linalg_core`). So the stage builds in its own target directory
//! ([`TARGET_DIR`], which holds only these verification builds), and
//! [`clear_stale`] removes, before each run, the unpacked copies of our
//! own libraries (only in local registries, whose directory names start
//! with `-`; crates.io's are immutable and left alone) and the build
//! records (`.fingerprint`) of our libraries in that target directory, so
//! that every run builds what it has just packaged.

use std::fs;
use std::path::{Path, PathBuf};

/// The packages published to crates.io: the four libraries. The command
/// line and reproductions (`experiments`), the Python extension, the
/// benches, test-support and xtask are `publish = false`.
pub(crate) const LIBRARIES: [&str; 4] = [
    "decomp-nn-linalg",
    "decomp-nn-optim",
    "decomp-nn-models",
    "decomp-nn-data",
];

/// The stage's own target directory, relative to the workspace root.
pub(crate) const TARGET_DIR: &str = "target/package-check";

/// `cargo package` of every library: packaged together (each verified
/// against the others' packages in a local registry, so no library needs
/// another to be on crates.io first); `--allow-dirty` so a contributor's
/// uncommitted edits are packaged as they are.
pub(crate) fn args(root: &Path) -> Vec<String> {
    let target = root.join(TARGET_DIR).to_string_lossy().into_owned();
    let mut args = vec![
        "package".to_string(),
        "--allow-dirty".to_string(),
        "--target-dir".to_string(),
        target,
    ];
    for lib in LIBRARIES {
        args.extend(["-p".to_string(), lib.to_string()]);
    }
    args
}

/// Cargo's home: `CARGO_HOME`, else `~/.cargo` (cargo's own rule).
fn cargo_home() -> Option<PathBuf> {
    match std::env::var_os("CARGO_HOME") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")),
    }
}

/// Removes what earlier runs left of [`LIBRARIES`] (see the module's doc):
/// their unpacked sources in cargo's local-registry source directories and
/// their build records in [`TARGET_DIR`]. Returns the directories removed.
pub(crate) fn clear_stale(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut removed = match cargo_home() {
        Some(home) => clear_stale_sources_in(&home.join("registry").join("src"))?,
        None => Vec::new(),
    };
    removed.extend(clear_build_records_in(&root.join(TARGET_DIR))?);
    Ok(removed)
}

/// Removes `<target>/<profile>/.fingerprint/<library>-<hash>` of every
/// library and profile: the next build compiles them again.
fn clear_build_records_in(target: &Path) -> Result<Vec<PathBuf>, String> {
    let mut removed = Vec::new();
    let Ok(profiles) = fs::read_dir(target) else {
        return Ok(removed); // not built yet
    };
    for profile in profiles.flatten() {
        let Ok(records) = fs::read_dir(profile.path().join(".fingerprint")) else {
            continue;
        };
        for record in records.flatten() {
            if is_library_build(&record.file_name().to_string_lossy()) {
                remove(&record.path())?;
                removed.push(record.path());
            }
        }
    }
    removed.sort();
    Ok(removed)
}

/// Removes a directory, with its path in the message when it cannot.
fn remove(path: &Path) -> Result<(), String> {
    fs::remove_dir_all(path).map_err(|e| format!("cannot remove the stale {}: {e}", path.display()))
}

/// [`clear_stale_sources`] under one `registry/src` directory.
fn clear_stale_sources_in(src: &Path) -> Result<Vec<PathBuf>, String> {
    let mut removed = Vec::new();
    let Ok(registries) = fs::read_dir(src) else {
        return Ok(removed); // no registry sources yet: nothing stale
    };
    for registry in registries.flatten() {
        let is_local = registry.file_name().to_string_lossy().starts_with('-');
        if !is_local || !registry.path().is_dir() {
            continue;
        }
        let Ok(packages) = fs::read_dir(registry.path()) else {
            continue;
        };
        for package in packages.flatten() {
            let name = package.file_name().to_string_lossy().into_owned();
            if is_library_source(&name) {
                remove(&package.path())?;
                removed.push(package.path());
            }
        }
    }
    removed.sort();
    Ok(removed)
}

/// Whether a directory name is `<library>-<version>` for one of
/// [`LIBRARIES`] (a version starts with a digit, so `decomp-nn-data-2`
/// matches and a library named `decomp-nn-data-extra` would not).
fn is_library_source(name: &str) -> bool {
    LIBRARIES.iter().any(|lib| {
        name.strip_prefix(lib)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// Whether a directory name is `<library>-<hash>` (a build record).
fn is_library_build(name: &str) -> bool {
    LIBRARIES.iter().any(|lib| {
        name.strip_prefix(lib)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|hash| !hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_our_unpacked_libraries_are_recognised() {
        assert!(is_library_source("decomp-nn-linalg-0.1.0"));
        assert!(is_library_source("decomp-nn-data-12.0.3"));
        assert!(!is_library_source("decomp-nn-data-extra-0.1.0"));
        assert!(!is_library_source("decomp-nn-linalg"));
        assert!(!is_library_source("ndarray-0.17.2"));
        assert!(is_library_build("decomp-nn-models-cd39ae6f3167511f"));
        assert!(!is_library_build("decomp-nn-data-extra-cd39ae6f3167511f"));
        assert!(!is_library_build("ndarray-cd39ae6f3167511f"));
    }

    #[test]
    fn only_our_libraries_build_records_are_removed() {
        let root = std::env::temp_dir().join(format!("xtask-records-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let ours = root.join("debug/.fingerprint/decomp-nn-linalg-0123abcd");
        let theirs = root.join("debug/.fingerprint/ndarray-0123abcd");
        for dir in [&ours, &theirs] {
            fs::create_dir_all(dir).expect("creating the test tree");
        }
        assert_eq!(clear_build_records_in(&root).expect("clearing"), vec![ours.clone()]);
        assert!(!ours.exists() && theirs.exists());
        fs::remove_dir_all(&root).expect("removing the test tree");
    }

    #[test]
    fn only_our_libraries_in_local_registries_are_removed() {
        let root = std::env::temp_dir().join(format!("xtask-package-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let local = root.join("-14cd1cce6819ff87");
        let crates_io = root.join("index.crates.io-1949cf8c6b5b557f");
        for dir in [
            local.join("decomp-nn-linalg-0.1.0"),
            local.join("decomp-nn-models-0.1.0"),
            local.join("ndarray-0.17.2"),
            crates_io.join("decomp-nn-linalg-0.1.0"),
        ] {
            fs::create_dir_all(&dir).expect("creating the test tree");
            fs::write(dir.join(".cargo-ok"), "{\"v\":1}").expect("writing a marker");
        }
        let removed = clear_stale_sources_in(&root).expect("clearing");
        assert_eq!(
            removed,
            vec![
                local.join("decomp-nn-linalg-0.1.0"),
                local.join("decomp-nn-models-0.1.0")
            ]
        );
        assert!(!local.join("decomp-nn-linalg-0.1.0").exists());
        assert!(local.join("ndarray-0.17.2").exists());
        assert!(crates_io.join("decomp-nn-linalg-0.1.0").exists());
        fs::remove_dir_all(&root).expect("removing the test tree");
        // A missing directory is not an error.
        assert_eq!(
            clear_stale_sources_in(&root).expect("missing dir"),
            Vec::<PathBuf>::new()
        );
    }
}
