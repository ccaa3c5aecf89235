//! ARCHITECTURE.md checked against the tree (issue 38, part 5): the
//! dependency table is every crate's `[dependencies]`, every path the file
//! names exists, and every source module is named in the code map.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The workspace members' manifests, from the root `Cargo.toml`.
fn member_manifests() -> Vec<PathBuf> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let members = text
        .split("members = [")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .expect("members");
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| root().join(m).join("Cargo.toml"))
        .collect()
}

/// The body of `[table]` in a manifest (up to the next table).
fn table<'a>(manifest: &'a str, name: &str) -> &'a str {
    manifest
        .split(&format!("\n[{name}]\n"))
        .nth(1)
        .map_or("", |rest| rest.split("\n[").next().unwrap_or(""))
}

fn package_name(manifest: &str) -> String {
    table(&format!("\n{manifest}"), "package")
        .lines()
        .find_map(|l| l.trim().strip_prefix("name = "))
        .map(|n| n.trim_matches('"').to_string())
        .expect("a package name")
}

/// Each member's workspace dependencies, as its manifest says.
fn actual_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let manifests: Vec<String> = member_manifests()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect();
    let names: BTreeSet<String> = manifests.iter().map(|m| package_name(m)).collect();
    manifests
        .iter()
        .map(|m| {
            let deps = table(m, "dependencies")
                .lines()
                .filter_map(|l| l.split(['=', '.', ' ']).next())
                .filter(|d| names.contains(*d))
                .map(String::from)
                .collect();
            (package_name(m), deps)
        })
        .collect()
}

/// The table `| \`crate\` | depends on |` of ARCHITECTURE.md.
fn documented_dependencies(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let start = doc.find("| crate | depends on |").expect("the dependency table");
    doc[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells[1].trim_matches('`').to_string();
            let deps = cells[2]
                .split(',')
                .map(|d| d.trim().trim_matches('`'))
                .filter(|d| !d.is_empty() && *d != "—")
                .map(String::from)
                .collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn the_dependency_table_is_every_manifest() {
    assert_eq!(documented_dependencies(&architecture()), actual_dependencies());
}

/// Every file and directory of the repository (relative, `/`-separated; a
/// directory with a trailing `/`), without build outputs and environments.
fn tree() -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if [
                ".git",
                "target",
                "node_modules",
                ".venv",
                "venv",
                "results",
                "__pycache__",
            ]
            .contains(&name.as_str())
            {
                continue;
            }
            let path = format!("{rel}{name}");
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                out.push(format!("{path}/"));
                walk(&e.path(), &format!("{path}/"), out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = vec![];
    walk(&root(), "", &mut out);
    out
}

/// The `backticked` words of the document.
fn code_spans(doc: &str) -> Vec<&str> {
    doc.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_path_the_file_names_exists() {
    let doc = architecture();
    let tree = tree();
    let looks_like_path = |s: &str| {
        !s.contains(' ')
            && !s.contains("::")
            && (s.ends_with('/') || [".rs", ".md", ".toml", ".py"].iter().any(|e| s.ends_with(e)))
    };
    let missing: Vec<&str> = code_spans(&doc)
        .into_iter()
        .filter(|s| looks_like_path(s))
        .filter(|s| !tree.iter().any(|t| t == s || t.ends_with(&format!("/{s}"))))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

#[test]
fn every_source_module_is_in_the_code_map() {
    let doc = architecture();
    let spans: BTreeSet<&str> = code_spans(&doc).into_iter().collect();
    let unnamed: Vec<String> = tree()
        .into_iter()
        .filter(|p| {
            p.ends_with(".rs")
                && (p.starts_with("crates/") || p.starts_with("benches/src/") || p.starts_with("xtask/src/"))
        })
        .filter(|p| p.contains("/src/"))
        .filter(|p| {
            let file = p.rsplit('/').next().unwrap_or("");
            !["lib.rs", "main.rs", "mod.rs", "tests.rs"].contains(&file) && !file.ends_with("_tests.rs")
        })
        .filter(|p| {
            let mut parts = p.rsplit('/');
            let file = parts.next().unwrap_or("");
            let dir = format!("{}/", parts.next().unwrap_or(""));
            let stem = file.trim_end_matches(".rs");
            !(doc.contains(file) || spans.contains(stem) || spans.contains(dir.as_str()))
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "source files ARCHITECTURE.md's code map does not name: {unnamed:?}"
    );
}
