//! No crate of the workspace has an import loop between its files: a file
//! that takes names from another (`use crate::a::B`, `use super::c::D`,
//! `crate::a::f()`) never takes them, directly or through others, from a
//! file that takes names from it. Such a loop makes two files one unit
//! that can be read, tested or moved only together.
//!
//! The files are parsed (syn), each crate's from its root (lib.rs, and
//! main.rs as a crate of its own) by following its `mod NAME;` items. A
//! file names another by every path that starts with `crate`, `self` or
//! `super`: in `use` items wherever they stand (in groups, renamed,
//! globbed, in function bodies), in expressions and types, and in macros'
//! arguments; and by a `use` path that starts with a child module's name
//! (`use pool::search_all`). A path names the deepest module file it
//! reaches (`crate::search::params::X` is search/params.rs, an inline
//! module its file); a name the crate root imports (`crate::Engine`)
//! names the file it comes from. Left out: the crate root itself (its
//! `use` items are the crate's face, not a dependency), a parent's `pub
//! use` of its children's items, and items under `#[cfg(test)]` (test
//! modules take `super::*` by design).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Attribute, Item, ItemMod, ItemUse, Meta, Token, UseTree, Visibility};

/// A module by its path from the crate root: `[]` is the root,
/// `["search", "params"]` is search/params.rs.
type Module = Vec<String>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The source directories of the workspace's members.
fn member_sources(workspace: &Path) -> Vec<PathBuf> {
    let manifest = fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a members list");
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| workspace.join(m).join("src"))
        .collect()
}

/// The crate roots of the workspace: each member's lib.rs and main.rs.
fn crate_roots(workspace: &Path) -> Vec<PathBuf> {
    member_sources(workspace)
        .iter()
        .flat_map(|src| [src.join("lib.rs"), src.join("main.rs")])
        .filter(|root| root.is_file())
        .collect()
}

/// Whether `attrs` hold `#[cfg(test)]` (or `#[cfg(all(test, ...))]`):
/// the item exists only in the crate's own tests.
fn test_only(attrs: &[Attribute]) -> bool {
    fn names_test(meta: &Meta) -> bool {
        match meta {
            Meta::Path(path) => path.is_ident("test"),
            Meta::List(list) if list.path.is_ident("all") => list
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .is_ok_and(|all| all.iter().any(names_test)),
            _ => false,
        }
    }
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg") && attr.parse_args::<Meta>().is_ok_and(|m| names_test(&m))
    })
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The `#[path = "..."]` of a module declaration, if any.
fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// A crate's modules, each with the file its items are written in (an
/// inline module's is the file around it), and its parsed files.
struct Tree {
    root: PathBuf,
    files: BTreeMap<Module, PathBuf>,
    /// Each file with the module it is the file of.
    parsed: Vec<(Module, PathBuf, syn::File)>,
}

impl Tree {
    /// The crate rooted at `root` (a lib.rs or main.rs), its files found
    /// by its `mod NAME;` items, test modules left out.
    fn read(root: &Path) -> Tree {
        let mut tree = Tree {
            root: root.to_path_buf(),
            files: BTreeMap::new(),
            parsed: Vec::new(),
        };
        let dir = root.parent().unwrap().to_path_buf();
        tree.load(root, Vec::new(), dir);
        tree
    }

    /// Parses `file`, the file of `module`, whose `mod NAME;` files lie in
    /// `dir`.
    fn load(&mut self, file: &Path, module: Module, dir: PathBuf) {
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        self.files.insert(module.clone(), file.to_path_buf());
        self.declare(file, &module, &dir, &ast.items);
        self.parsed.push((module, file.to_path_buf(), ast));
    }

    /// Registers the modules that `items` (of `module`, in `file`) declare,
    /// loading the files of `mod NAME;` from `dir`.
    fn declare(&mut self, file: &Path, module: &Module, dir: &Path, items: &[Item]) {
        for item in items {
            let Item::Mod(m) = item else { continue };
            if test_only(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            let child: Module = module.iter().cloned().chain([name.clone()]).collect();
            match &m.content {
                Some((_, inner)) => {
                    self.files.insert(child.clone(), file.to_path_buf());
                    self.declare(file, &child, &dir.join(&name), inner);
                }
                None => {
                    let (path, child_dir) = module_file(dir, &name, path_attr(&m.attrs));
                    self.load(&path, child, child_dir);
                }
            }
        }
    }

    /// The deepest module `path`, written in `from`, reaches, with how many
    /// of its names that took; `None` for a path that does not start in
    /// this crate. A path in a `use` item may start with a child module's
    /// name (`use pool::search_all`).
    fn reach(&self, from: &Module, path: &[String], in_use: bool) -> Option<(Module, usize)> {
        let first = path.first()?;
        let (mut module, mut at) = match first.as_str() {
            "crate" => (Vec::new(), 1),
            "self" | "super" => (from.clone(), 0),
            child if in_use && self.files.contains_key(&extend(from, child)) => (from.clone(), 0),
            _ => return None,
        };
        while let Some(step) = path.get(at) {
            match step.as_str() {
                "self" => {}
                "super" => {
                    module.pop()?;
                }
                _ => break,
            }
            at += 1;
        }
        while let Some(step) = path.get(at) {
            let next = extend(&module, step);
            if !self.files.contains_key(&next) {
                break;
            }
            module = next;
            at += 1;
        }
        Some((module, at))
    }
}

/// `module::name`.
fn extend(module: &Module, name: &str) -> Module {
    module.iter().cloned().chain([name.to_string()]).collect()
}

/// The file of `mod NAME;` declared with its files in `dir`, and where
/// its own `mod` files lie.
fn module_file(dir: &Path, name: &str, path: Option<String>) -> (PathBuf, PathBuf) {
    if let Some(path) = path {
        // A file named by `#[path]` holds its children beside it.
        let file = dir.join(path);
        let beside = file.parent().unwrap().to_path_buf();
        return (file, beside);
    }
    let flat = dir.join(format!("{name}.rs"));
    let file = if flat.is_file() {
        flat
    } else {
        dir.join(name).join("mod.rs")
    };
    (file, dir.join(name))
}

/// Every path of a `use` tree with the name it brings in (`None` for a
/// glob): `crate::a::{b::C, D as E, self}` gives `crate::a::b::C` as `C`,
/// `crate::a::D` as `E` and `crate::a` as `a`.
fn use_paths(tree: &UseTree, prefix: &[String], out: &mut Vec<(Vec<String>, Option<String>)>) {
    let with = |name: &syn::Ident| -> Vec<String> {
        prefix.iter().cloned().chain([name.to_string()]).collect()
    };
    match tree {
        UseTree::Path(p) => use_paths(&p.tree, &with(&p.ident), out),
        UseTree::Name(n) if n.ident == "self" => {
            out.push((prefix.to_vec(), prefix.last().cloned()))
        }
        UseTree::Name(n) => out.push((with(&n.ident), Some(n.ident.to_string()))),
        UseTree::Rename(r) => out.push((with(&r.ident), Some(r.rename.to_string()))),
        UseTree::Glob(_) => out.push((prefix.to_vec(), None)),
        UseTree::Group(g) => {
            for item in &g.items {
                use_paths(item, prefix, out);
            }
        }
    }
}

/// The paths in a macro's tokens that start with `crate`, `self` or
/// `super` (not `$crate`, a macro's own crate).
fn macro_paths(tokens: &str) -> Vec<Vec<String>> {
    let spaced = tokens.replace("::", " :: ").replace('$', " $ ");
    let words: Vec<&str> = spaced
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut paths = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let starts = matches!(*word, "crate" | "self" | "super");
        let after_dollar = i > 0 && words[i - 1] == "$";
        let continued = i > 0 && words[i - 1] == "::";
        if !starts || after_dollar || continued || words.get(i + 1) != Some(&"::") {
            continue;
        }
        let mut path = vec![word.to_string()];
        let mut at = i + 1;
        while words.get(at) == Some(&"::") && words.get(at + 1).is_some_and(|w| *w != "::") {
            path.push(words[at + 1].to_string());
            at += 2;
        }
        paths.push(path);
    }
    paths
}

/// A path a file names, with the module it is written in.
struct Reference {
    from: Module,
    path: Vec<String>,
    /// From a `pub use` (of any visibility but private).
    pub_use: bool,
    how: Written,
}

/// Where a reference is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    Use,
    /// In an expression, a type or a pattern.
    Path,
    /// In a macro's arguments.
    Macro,
}

/// The references of one file's items, test items left out.
struct Collector {
    module: Module,
    found: Vec<Reference>,
}

impl Collector {
    fn add(&mut self, path: Vec<String>, pub_use: bool, how: Written) {
        self.found.push(Reference {
            from: self.module.clone(),
            path,
            pub_use,
            how,
        });
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast Item) {
        if !test_only(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => return visit::visit_impl_item(self, item),
        };
        if !test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast ItemMod) {
        // A `mod NAME;` file is read on its own, as its module.
        if let Some((_, items)) = &m.content {
            self.module.push(m.ident.to_string());
            for item in items {
                self.visit_item(item);
            }
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast ItemUse) {
        let pub_use = !matches!(u.vis, Visibility::Inherited);
        let mut paths = Vec::new();
        use_paths(&u.tree, &[], &mut paths);
        for (path, _) in paths {
            self.add(path, pub_use, Written::Use);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // A lone name is a value or a type, not a module's item.
        if path.segments.len() > 1 {
            let names = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.add(names, false, Written::Path);
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        for path in macro_paths(&mac.tokens.to_string()) {
            self.add(path, false, Written::Macro);
        }
    }
}

/// An edge of the import graph: the file that names, the file named, and
/// how (the first reference that makes it).
type Edges = BTreeMap<Module, BTreeMap<Module, String>>;

/// The names the root file imports (its `use` items, its inline modules'
/// too): each, by the module it is imported into, with the module it comes
/// from.
fn face(tree: &Tree) -> BTreeMap<(Module, String), Module> {
    let (_, _, root) = tree
        .parsed
        .iter()
        .find(|(_, file, _)| *file == tree.root)
        .expect("the root, parsed");
    let mut uses = Vec::new();
    collect_uses(&root.items, &Vec::new(), &mut uses);
    let mut names = BTreeMap::new();
    for (module, u) in uses {
        let mut paths = Vec::new();
        use_paths(&u.tree, &[], &mut paths);
        for (path, name) in paths {
            let (Some(name), Some((from, _))) = (name, tree.reach(&module, &path, true)) else {
                continue;
            };
            if tree.files[&from] != tree.root {
                names.insert((module.clone(), name), from);
            }
        }
    }
    names
}

/// The `use` items of `items` (of `module`) and of their inline modules.
fn collect_uses<'a>(items: &'a [Item], module: &Module, out: &mut Vec<(Module, &'a ItemUse)>) {
    for item in items.iter().filter(|i| !test_only(item_attrs(i))) {
        match item {
            Item::Use(u) => out.push((module.clone(), u)),
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect_uses(inner, &extend(module, &m.ident.to_string()), out);
                }
            }
            _ => {}
        }
    }
}

/// The import graph of the crate rooted at `root`: between its files, each
/// named by its module.
fn edges(root: &Path) -> Edges {
    let tree = Tree::read(root);
    let face = face(&tree);
    let file_module: BTreeMap<&PathBuf, &Module> =
        tree.parsed.iter().map(|(m, f, _)| (f, m)).collect();
    let mut edges = Edges::new();
    for (module, file, ast) in &tree.parsed {
        if *file == tree.root {
            continue;
        }
        let mut collector = Collector {
            module: module.clone(),
            found: Vec::new(),
        };
        collector.visit_file(ast);
        for r in collector.found {
            let Some(to) = target(&tree, &face, &r) else {
                continue;
            };
            let to_file = &tree.files[&to];
            if to_file == file || *to_file == tree.root {
                continue;
            }
            let how = format!("{:?} {}", r.how, r.path.join("::"));
            edges
                .entry(module.clone())
                .or_default()
                .entry(file_module[to_file].clone())
                .or_insert(how);
        }
    }
    edges
}

/// The module whose file reference `r` takes names from, if another than
/// the root: the deepest it reaches, or for a name the root imports, where
/// that comes from. A parent's `pub use` of its children is left out.
fn target(tree: &Tree, face: &BTreeMap<(Module, String), Module>, r: &Reference) -> Option<Module> {
    let (reached, at) = tree.reach(&r.from, &r.path, r.how == Written::Use)?;
    let to = if tree.files[&reached] == tree.root {
        let name = r.path.get(at)?;
        face.get(&(reached, name.clone()))?.clone()
    } else {
        reached
    };
    let re_exports_child = r.pub_use && to.starts_with(&r.from) && to != r.from;
    (!re_exports_child).then_some(to)
}

/// The first import loop among `edges`, as the modules it goes through.
fn find_cycle(edges: &Edges) -> Option<Vec<Module>> {
    fn visit(
        node: &Module,
        edges: &Edges,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flat_map(BTreeMap::keys) {
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

/// The import loop of the crate rooted at `root`, if any, each step with
/// the reference that makes it.
fn cycle_in(root: &Path) -> Option<Vec<String>> {
    described_cycle(&edges(root))
}

/// The first import loop among `edges`, each step with the reference that
/// makes it.
fn described_cycle(edges: &Edges) -> Option<Vec<String>> {
    let cycle = find_cycle(edges)?;
    let name = |m: &Module| {
        if m.is_empty() {
            "crate".to_string()
        } else {
            m.join("::")
        }
    };
    Some(
        cycle
            .windows(2)
            .map(|step| {
                let how = &edges[&step[0]][&step[1]];
                format!("{} -> {} ({how})", name(&step[0]), name(&step[1]))
            })
            .collect(),
    )
}

/// The import loops of the workspace at `workspace`, after checking that
/// there is something to check.
fn workspace_loops(workspace: &Path) -> Vec<String> {
    let roots = crate_roots(workspace);
    assert!(roots.len() >= 10, "crate roots found: {roots:?}");
    let graphs: Vec<(&PathBuf, Edges)> = roots.iter().map(|root| (root, edges(root))).collect();
    let edge_count: usize = graphs
        .iter()
        .flat_map(|(_, graph)| graph.values())
        .map(BTreeMap::len)
        .sum();
    assert!(edge_count > 0, "no import between files found in {roots:?}");
    graphs
        .iter()
        .filter_map(|(root, graph)| {
            let cycle = described_cycle(graph)?;
            Some(format!("{}: {}", root.display(), cycle.join(", ")))
        })
        .collect()
}

#[test]
fn no_crate_has_an_import_loop_between_its_files() {
    let loops = workspace_loops(&workspace());
    assert!(loops.is_empty(), "import loops:\n{}", loops.join("\n"));
}

/// A crate in a fresh directory: lib.rs and a.rs as given, and b.rs.
fn crate_with_b(dir: &Path, b: &str) -> PathBuf {
    fs::write(dir.join("lib.rs"), "mod a;\nmod b;\npub use a::A;\n").unwrap();
    fs::write(
        dir.join("a.rs"),
        "use crate::b::B;\npub struct A(B);\npub fn f() {}\n",
    )
    .unwrap();
    fs::write(dir.join("b.rs"), b).unwrap();
    dir.join("lib.rs")
}

#[test]
fn a_loop_is_found() {
    let dir = tempfile_dir("loop");
    // a.rs takes B from b.rs; each b.rs takes a name from a.rs.
    for b in [
        // Through the root's re-export, in a type.
        "pub struct B;\nfn g() -> crate::A { todo!() }\n",
        // A `use` in a function's body, a group.
        "pub struct B;\nfn g() { use crate::{a::A}; let _: Option<A> = None; }\n",
        "pub struct B;\nfn g() { use super::a::f; f() }\n",
        // A call by its path.
        "pub struct B;\nfn g() { super::a::f() }\n",
        // The module under another name.
        "pub struct B;\nuse crate::a as sibling;\nfn g() { sibling::f() }\n",
        // After a test module.
        "pub struct B;\n#[cfg(test)]\nmod tests {}\nuse crate::a::f;\n",
        // In a macro's arguments.
        "pub struct B;\nfn g() { println!(\"{:?}\", crate::a::f()) }\n",
    ] {
        let cycle = cycle_in(&crate_with_b(&dir, b));
        assert_eq!(cycle.map(|c| c.len()), Some(2), "{b:?}");
    }
    // Tests' imports are not the crate's.
    for b in [
        "pub struct B;\n#[cfg(test)]\nuse crate::A;\n",
        "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::a::f;\n}\n",
    ] {
        assert_eq!(cycle_in(&crate_with_b(&dir, b)), None, "{b:?}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_parents_re_export_of_its_child_is_no_loop() {
    let dir = tempfile_dir("re-export");
    fs::create_dir(dir.join("a")).unwrap();
    fs::write(dir.join("lib.rs"), "mod a;\n").unwrap();
    fs::write(dir.join("a.rs"), "mod c;\npub use c::C;\npub struct X;\n").unwrap();
    fs::write(dir.join("a/c.rs"), "use super::X;\npub struct C(X);\n").unwrap();
    let graph = edges(&dir.join("lib.rs"));
    assert_eq!(graph.len(), 1, "{graph:?}");
    assert_eq!(cycle_in(&dir.join("lib.rs")), None);
    // Taken privately, the child's name is a dependency like any other.
    fs::write(
        dir.join("a.rs"),
        "mod c;\nuse c::C;\npub struct X;\nfn g(_: C) {}\n",
    )
    .unwrap();
    assert!(cycle_in(&dir.join("lib.rs")).is_some());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_binary_is_its_own_files_only() {
    let dir = tempfile_dir("binary");
    fs::write(dir.join("lib.rs"), "mod a;\n").unwrap();
    fs::write(dir.join("a.rs"), "pub fn f() {}\n").unwrap();
    fs::write(dir.join("main.rs"), "mod cli;\nfn main() { cli::run() }\n").unwrap();
    fs::write(dir.join("cli.rs"), "pub fn run() { xq::a::f() }\n").unwrap();
    let binary = Tree::read(&dir.join("main.rs"));
    let modules: Vec<Module> = binary.files.into_keys().collect();
    assert_eq!(modules, [vec![], vec!["cli".to_string()]]);
    fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory of this test's own under the system's temporary one.
fn tempfile_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("import-cycles-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}
