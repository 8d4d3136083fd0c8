//! memdir's plugin for a client whose hooks are plugins in its own process (opencode, R14): a
//! small file setup writes whole in the client's plugin folder. It loads `@memdir/opencode`
//! (packages/opencode) from where it is installed and hands it the memdir binary and the model.
//! The file is memdir's by its first line; `--remove` deletes it.

use serde_json::json;
use std::path::{Path, PathBuf};

/// The first line of every plugin file setup writes: how setup knows the file is its own.
const MARK: &str = "// memdir's opencode plugin: automatic memory.";

/// The plugin package's entry, `dist/index.js` of `@memdir/opencode`: `$MEMDIR_OPENCODE_PLUGIN`
/// (npm's `memdir` launcher sets it), else beside the binary in a source checkout
/// (`target/*/memdir`) or an npm installation (`node_modules/@memdir/cli-<os>-<cpu>/memdir`).
pub fn package(var: Option<&str>, exe: &Path) -> Option<PathBuf> {
    if let Some(path) = var.filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let dir = exe.parent()?;
    [dir.join("../../packages/opencode/dist/index.js"), dir.join("../opencode/dist/index.js")]
        .into_iter()
        .find(|p| p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// The plugin file: it imports the package and passes the binary and the model. Every path and
/// value is a JSON string literal, so no folder name can end one early.
pub fn content(package: &Path, program: &str, llm: Option<&str>) -> String {
    let url = file_url(package);
    let mut options = json!({ "memdir": program });
    if let Some(llm) = llm {
        options["llm"] = json!(llm);
    }
    format!(
        "{MARK} Written by `memdir setup`; `memdir setup --remove` deletes it.\n\
         import {{ MemdirPlugin }} from {};\n\
         export const Memdir = (ctx) => MemdirPlugin(ctx, {options});\n",
        json!(url)
    )
}

/// The model a plugin file setup wrote hands the plugin, if any.
pub fn llm_of(text: &str) -> Option<String> {
    let options = text.lines().find(|l| l.contains("MemdirPlugin(ctx, "))?;
    let start = options.find('{')?;
    let end = options.rfind('}')?;
    let value: serde_json::Value = serde_json::from_str(options.get(start..=end)?).ok()?;
    value["llm"].as_str().map(str::to_string)
}

/// Whether `text` is a plugin file setup wrote.
pub fn is_memdirs(text: &str) -> bool {
    text.starts_with(MARK)
}

/// `path` as a `file://` URL: every byte but the unreserved ones, `/` and `@` (npm scopes) percent-encoded.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~@".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_folder_name_stays_inside_its_string() {
        let text = content(
            Path::new("/x/\";process.exit(1);\"/\n`${a}`/dist/index.js"),
            "/bin/me\"m",
            Some("command:sh -c 'x'"),
        );
        assert!(is_memdirs(&text));
        let import = text.lines().nth(1).unwrap();
        assert_eq!(
            import,
            "import { MemdirPlugin } from \"file:///x/%22%3Bprocess.exit%281%29%3B%22/%0A%60%24%7Ba%7D%60/dist/index.js\";"
        );
        assert_eq!(text.lines().count(), 3);
        assert!(text.contains(r#"{"llm":"command:sh -c 'x'","memdir":"/bin/me\"m"}"#), "{text}");
        assert_eq!(llm_of(&text).as_deref(), Some("command:sh -c 'x'"));
    }

    #[test]
    fn the_package_comes_from_the_variable_first() {
        let exe = Path::new("/nowhere/bin/memdir");
        assert_eq!(package(Some("/p/index.js"), exe), Some(PathBuf::from("/p/index.js")));
        assert_eq!(package(Some(""), exe), None);
        assert_eq!(package(None, exe), None);
    }
}
