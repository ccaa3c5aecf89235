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

/// The published package names the root manifest's `[workspace.dependencies]`
/// renames to a short key (`models = { package = "decomp-nn-models", … }`):
/// package name → key.
fn renamed_packages() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    table(&text, "workspace.dependencies")
        .lines()
        .filter_map(|l| {
            let (key, rest) = l.split_once('=')?;
            let package = rest.split("package = \"").nth(1)?.split('"').next()?;
            Some((package.to_string(), key.trim().to_string()))
        })
        .collect()
}

/// A member's name as the workspace writes it: its dependency key (the
/// short name of a renamed package), else its package name.
fn package_name(manifest: &str) -> String {
    let name = table(&format!("\n{manifest}"), "package")
        .lines()
        .find_map(|l| l.trim().strip_prefix("name = "))
        .map(|n| n.trim_matches('"').to_string())
        .expect("a package name");
    renamed_packages().remove(&name).unwrap_or(name)
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

/// The `cli` modules a source file of `cli/` refers to (`super::NAME`,
/// `crate::cli::NAME`, `self::NAME` in `mod.rs`), outside its tests and
/// its nested modules' `use super::` lines; a module is a file of the
/// folder.
fn cli_references(dir: &Path, modules: &BTreeSet<String>, file: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join(format!("{file}.rs"))).unwrap_or_default();
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let prefixes: &[&str] = if file == "mod" {
        &["self::", "crate::cli::"]
    } else {
        &["super::", "crate::cli::"]
    };
    let mut found = BTreeSet::new();
    for line in code.lines() {
        // `use super::…` inside a nested module names that module's parent.
        if line.starts_with(' ') && line.trim_start().starts_with("use super::") {
            continue;
        }
        for prefix in prefixes {
            for (at, _) in line.match_indices(prefix) {
                let name: String = line[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != file && modules.contains(&name) {
                    found.insert(name);
                }
            }
        }
    }
    found
}

/// The strongly connected components of `graph` (Tarjan), largest first.
fn components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(lw));
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                s.low.entry(v).and_modify(|l| *l = (*l).min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    s.out
}

/// Issue 38: no import circle in the command line's modules — each file of
/// `crates/experiments/src/cli/` refers only to files below it, so that a
/// model's file depends on the seam and never on the dispatch above it.
/// The check itself is checked on a made-up circle.
#[test]
fn the_command_line_has_no_import_circle() {
    let dir = root().join("crates/experiments/src/cli");
    let modules: BTreeSet<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_suffix(".rs"))
                        .map(str::to_string)
                })
                .filter(|n| !n.ends_with("_tests"))
                .collect()
        })
        .unwrap_or_default();
    assert!(modules.len() > 10, "cli/ has its modules: {modules:?}");
    let graph: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), cli_references(&dir, &modules, m)))
        .collect();
    assert!(
        graph["mod"].contains("args") && graph["fit"].contains("model_command"),
        "{graph:?}"
    );
    let largest = components(&graph).into_iter().next().unwrap_or_default();
    assert_eq!(largest.len(), 1, "an import circle in cli/: {largest:?}; {graph:?}");
    let circle: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .iter()
        .map(|(f, t)| (f.to_string(), BTreeSet::from([t.to_string()])))
        .collect();
    assert_eq!(components(&circle)[0].len(), 3);
}
