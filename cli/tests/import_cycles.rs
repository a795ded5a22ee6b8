//! No crate of the workspace has an import loop between its files: a file
//! that takes names from another (`use crate::a::B`, `use super::c::D`,
//! `crate::a::f()`) never takes them, directly or through others, from a
//! file that takes names from it. Such a loop makes two files one unit
//! that can be read, tested or moved only together.
//!
//! The files are read as text: a path names the deepest module file it
//! reaches (`crate::search::params::X` is search/params.rs when that file
//! exists, else search.rs or search/mod.rs); a name the crate root
//! re-exports (`crate::Engine`) names the file that defines it. Left out:
//! the crate root itself (its `pub use` lines are the crate's face, not a
//! dependency), a parent's `pub use` of its children, and test modules
//! (`#[cfg(test)]`, which take `super::*` by design).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module by its path from the crate root: `[]` is the root,
/// `["search", "params"]` is search/params.rs.
type Module = Vec<String>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The workspace's crates: every member directory with a src/.
fn crates() -> Vec<PathBuf> {
    let manifest = fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a members list");
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| workspace().join(m).join("src"))
        .filter(|src| src.is_dir())
        .collect()
}

/// Every .rs file under `src` with its module path, for one crate root
/// (lib.rs or main.rs): the other root's tree is another crate.
fn modules(src: &Path, root: &str) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    found.insert(Vec::new(), src.join(root));
    let mut stack = vec![(src.to_path_buf(), Vec::<String>::new())];
    while let Some((dir, prefix)) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                if name != "bin" {
                    let mut sub = prefix.clone();
                    sub.push(name);
                    stack.push((path, sub));
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                if prefix.is_empty() && (name == "lib" || name == "main") {
                    continue;
                }
                let mut module = prefix.clone();
                if name != "mod" {
                    module.push(name);
                }
                found.insert(module, path);
            }
        }
    }
    found
}

/// The text of a file without its test modules and comments.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths in `text` that start with `crate::`, `super::` or `self::`,
/// with `use` groups expanded (`use crate::a::{b::C, D}` gives
/// `crate::a::b::C` and `crate::a::D`), each with whether it is a `pub use`.
fn paths(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for statement in text.split(';') {
        let trimmed = statement.trim_start();
        let is_pub_use = trimmed.starts_with("pub use") || trimmed.starts_with("pub(crate) use");
        if let Some(start) = statement.find("use ") {
            let tree: String = statement[start + 4..].split_whitespace().collect();
            let lead = statement[..start].trim();
            let is_use_statement = lead.is_empty()
                || lead.ends_with("pub")
                || lead.ends_with(')')
                || lead.ends_with(']');
            if is_use_statement {
                expand("", &tree, &mut |p| out.push((p, is_pub_use)));
                continue;
            }
        }
        for (i, _) in statement.match_indices("crate::") {
            let before = statement[..i].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let path: String = statement[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push((path, false));
        }
    }
    out
}

/// Calls `each` with every path of the use tree `tree` under `prefix`.
fn expand(prefix: &str, tree: &str, each: &mut dyn FnMut(String)) {
    match tree.find('{') {
        None => each(format!("{prefix}{tree}")),
        Some(open) => {
            let head = &tree[..open];
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let mut depth = 0;
            let mut last = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&format!("{prefix}{head}"), &inner[last..i], each);
                        last = i + 1;
                    }
                    _ => {}
                }
            }
            if last < inner.len() {
                expand(&format!("{prefix}{head}"), &inner[last..], each);
            }
        }
    }
}

/// The module file a path from `from` names, if it is another file of the
/// crate: the deepest module the path reaches, or for a name the root
/// re-exports, the module it comes from.
fn target(
    from: &Module,
    path: &str,
    known: &BTreeMap<Module, PathBuf>,
    face: &BTreeMap<String, Module>,
) -> Option<Module> {
    let mut parts = path.split("::").filter(|p| !p.is_empty()).peekable();
    // The module a relative path starts from: a file's own module is its
    // path, and `super` of a.rs is the root, of a/b.rs is a.
    let mut base: Module = match *parts.peek()? {
        "crate" => {
            parts.next();
            Vec::new()
        }
        "self" | "super" => from.clone(),
        // A child module named without `self::` (`use pool::search_all`).
        child if known.contains_key(&[from.clone(), vec![child.to_string()]].concat()) => {
            from.clone()
        }
        _ => return None,
    };
    while let Some(&p) = parts.peek() {
        match p {
            "super" => {
                base.pop();
                parts.next();
            }
            "self" => {
                parts.next();
            }
            _ => break,
        }
    }
    let rest: Vec<&str> = parts.collect();
    let mut deepest = base.clone();
    let mut module = base.clone();
    for part in &rest {
        module.push(part.to_string());
        if known.contains_key(&module) {
            deepest = module.clone();
        } else {
            break;
        }
    }
    if deepest.is_empty() {
        let name = rest.first()?;
        return face.get(*name).cloned();
    }
    Some(deepest)
}

/// The root's re-exports: each name with the module it comes from.
fn face(root: &Path, known: &BTreeMap<Module, PathBuf>) -> BTreeMap<String, Module> {
    let mut names = BTreeMap::new();
    for (path, is_pub) in paths(&code(root)) {
        if !is_pub {
            continue;
        }
        let parts: Vec<&str> = path.split("::").collect();
        let Some(name) = parts.last() else { continue };
        let name = name.split(" as ").last().unwrap_or(name);
        let module: Module = parts[..parts.len() - 1]
            .iter()
            .filter(|p| **p != "crate" && **p != "self")
            .map(|p| p.to_string())
            .collect();
        if known.contains_key(&module) && !module.is_empty() {
            names.insert(name.to_string(), module);
        }
    }
    names
}

/// The first import loop among `edges`, as the files it goes through.
fn find_cycle(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        node: &Module,
        edges: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|m| m == next).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, edges, state, stack) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if state.get(node).copied().unwrap_or(0) == 0 {
            if let Some(cycle) = visit(node, edges, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

/// The import loop of the crate tree rooted at `src/root`, if any.
fn cycle_in(src: &Path, root: &str) -> Option<Vec<Module>> {
    let known = modules(src, root);
    let face = face(&src.join(root), &known);
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, file) in &known {
        if module.is_empty() {
            continue;
        }
        for (path, is_pub_use) in paths(&code(file)) {
            let Some(to) = target(module, &path, &known, &face) else {
                continue;
            };
            let re_exports_child = is_pub_use && to.starts_with(module);
            if to != *module && !to.is_empty() && !re_exports_child {
                edges.entry(module.clone()).or_default().insert(to);
            }
        }
    }
    find_cycle(&edges)
}

#[test]
fn no_crate_has_an_import_loop_between_its_files() {
    let mut loops = Vec::new();
    for src in crates() {
        for root in ["lib.rs", "main.rs"] {
            if !src.join(root).is_file() {
                continue;
            }
            if let Some(cycle) = cycle_in(&src, root) {
                let names: Vec<String> = cycle
                    .iter()
                    .map(|m| format!("{}::{}", src.parent().unwrap().display(), m.join("::")))
                    .collect();
                loops.push(names.join(" -> "));
            }
        }
    }
    assert!(loops.is_empty(), "import loops:\n{}", loops.join("\n"));
}

#[test]
fn a_loop_is_found() {
    let dir = tempfile_dir();
    fs::write(dir.join("lib.rs"), "mod a;\nmod b;\npub use a::A;\n").unwrap();
    fs::write(dir.join("a.rs"), "use crate::b::B;\npub struct A(B);\n").unwrap();
    fs::write(
        dir.join("b.rs"),
        "pub struct B;\nfn f() -> crate::A { todo!() }\n",
    )
    .unwrap();
    let cycle = cycle_in(&dir, "lib.rs").expect("a -> b -> a");
    assert_eq!(cycle.len(), 3, "{cycle:?}");
    fs::write(
        dir.join("b.rs"),
        "pub struct B;\n#[cfg(test)]\nuse crate::A;\n",
    )
    .unwrap();
    assert_eq!(cycle_in(&dir, "lib.rs"), None);
    fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory of this test's own under the system's temporary one.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("import-cycles-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}
