//! memdir's lifecycle hooks in a client's JSON hook file: one item in the array of each event it
//! uses, under `hooks` (R14). Every other item, key, comment and the layout stay, as for the
//! server entry (edit.rs). memdir's items are the ones whose command runs `memdir hook`.

use super::edit::to_cst;
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstNode, CstObject, CstRootNode};
use serde_json::Value;

/// The key of the object of events.
const HOOKS: &str = "hooks";

/// memdir's hooks for one file: each event's item, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct HookSet {
    /// Keys set at the top of a file setup creates (Cursor's `"version": 1`).
    pub header: Vec<(&'static str, Value)>,
    pub items: Vec<(String, Value)>,
}

impl HookSet {
    /// The items memdir has in `text`, by event, in file order.
    pub fn registered(text: &str) -> Result<Vec<(String, Value)>, String> {
        let root = parse(text)?;
        let Some(events) = events(&root, false)? else { return Ok(Vec::new()) };
        let mut found = Vec::new();
        for prop in events.properties() {
            let (Some(name), Some(array)) = (prop.decoded_name(), prop.array_value()) else { continue };
            for element in array.elements() {
                if let Some(value) = element.to_serde_value().filter(is_memdir) {
                    found.push((name.clone(), value));
                }
            }
        }
        Ok(found)
    }

    /// Whether `text` has exactly these items and no other of memdir's.
    pub fn is_in(&self, text: Option<&str>) -> Result<bool, String> {
        let Some(text) = text else { return Ok(false) };
        let key = |items: &mut Vec<(String, Value)>| {
            items.sort_by_key(|(event, item)| (event.clone(), item.to_string()))
        };
        let (mut found, mut wanted) = (HookSet::registered(text)?, self.items.clone());
        key(&mut found);
        key(&mut wanted);
        Ok(found == wanted)
    }

    /// `text` (None: no file yet) with memdir's items replaced by these.
    pub fn add(&self, text: Option<&str>) -> Result<String, String> {
        let cleaned = match text {
            Some(text) => HookSet::remove(text)?,
            None => String::new(),
        };
        let root = parse(&cleaned)?;
        if text.is_none() {
            let object = root.object_value_or_set();
            for (key, value) in &self.header {
                object.append(key, to_cst(value));
            }
        }
        let events = events(&root, true)?.expect("created");
        for (event, item) in &self.items {
            let array = match events
                .properties()
                .into_iter()
                .rev()
                .find(|p| p.decoded_name().as_deref() == Some(event))
            {
                Some(prop) => prop
                    .array_value()
                    .ok_or_else(|| format!("\"hooks\".\"{event}\" is not a list; fix the file by hand"))?,
                None => events.array_value_or_set(event),
            };
            array.append(to_cst(item));
        }
        let mut out = root.to_string();
        if text.is_none() && !out.ends_with('\n') {
            out.push('\n');
        }
        Ok(out)
    }

    /// `text` without memdir's items; an event left with none goes, and so does a `hooks`
    /// object left empty.
    pub fn remove(text: &str) -> Result<String, String> {
        let root = parse(text)?;
        if let Some(events) = events(&root, false)? {
            for prop in events.properties() {
                let Some(array) = prop.array_value() else { continue };
                let elements = array.elements();
                let ours: Vec<CstNode> = elements
                    .iter()
                    .filter(|e| e.to_serde_value().is_some_and(|v| is_memdir(&v)))
                    .cloned()
                    .collect();
                if ours.is_empty() {
                    continue;
                }
                let all = ours.len() == elements.len();
                for element in ours {
                    element.remove();
                }
                if all {
                    prop.remove();
                }
            }
            if events.properties().is_empty()
                && let Some(prop) = root.object_value().and_then(|o| o.get(HOOKS))
            {
                prop.remove();
            }
        }
        Ok(root.to_string())
    }
}

fn parse(text: &str) -> Result<CstRootNode, String> {
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| format!("not valid JSON: {e}"))
}

/// The object of events; with `create`, made where missing.
fn events(root: &CstRootNode, create: bool) -> Result<Option<CstObject>, String> {
    let object = match (root.object_value(), create) {
        (Some(o), _) => o,
        (None, true) if root.value().is_none() => root.object_value_or_set(),
        (None, true) => return Err("the file holds something other than an object".into()),
        (None, false) => return Ok(None),
    };
    match object.properties().into_iter().rev().find(|p| p.decoded_name().as_deref() == Some(HOOKS)) {
        Some(prop) => prop
            .object_value()
            .map(Some)
            .ok_or_else(|| "\"hooks\" is not an object; fix the file by hand".into()),
        None if create => Ok(Some(object.object_value_or_set(HOOKS))),
        None => Ok(None),
    }
}

/// An item runs `memdir hook`: its own command, or one of its `hooks`' (the nested shape).
fn is_memdir(item: &Value) -> bool {
    if let Some(command) = item.get("command").and_then(Value::as_str) {
        return runs_memdir_hook(command);
    }
    item.get("hooks").and_then(Value::as_array).is_some_and(|hooks| hooks.iter().any(is_memdir))
}

/// `PROGRAM hook …` where PROGRAM (quoted or not) is a file named `memdir`.
pub fn runs_memdir_hook(command: &str) -> bool {
    let Some((program, rest)) = first_word(command.trim_start()) else { return false };
    let name = std::path::Path::new(&program).file_name().and_then(|n| n.to_str()).unwrap_or("");
    matches!(name, "memdir" | "memdir.exe") && rest.split_whitespace().next() == Some("hook")
}

/// The model a stop command of memdir's names after `--llm`: what a run of setup without
/// `--llm` keeps (the VS Code extension runs setup without one).
pub fn llm_of(command: &str) -> Option<String> {
    let mut rest = command.trim_start();
    let mut words = Vec::new();
    while !rest.is_empty() {
        let (word, after) = first_word(rest)?;
        words.push(word);
        rest = after.trim_start();
    }
    let at = words.iter().position(|w| w == "--llm")?;
    words.get(at + 1).cloned()
}

/// The first shell word of `text` (single quotes and backslashes as the shell reads them) and
/// the rest; None when a quote is left open.
fn first_word(text: &str) -> Option<(String, &str)> {
    let mut word = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    (_, '\'') => break,
                    (_, c) => word.push(c),
                }
            },
            '\\' => word.push(chars.next()?.1),
            c if c.is_whitespace() => return Some((word, &text[i..])),
            c => word.push(c),
        }
    }
    Some((word, ""))
}

/// `program` as one shell word: as it is when that is safe, else in single quotes.
pub fn shell_word(program: &str) -> String {
    if !program.is_empty() && program.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b)) {
        return program.to_string();
    }
    format!("'{}'", program.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set() -> HookSet {
        HookSet {
            header: vec![],
            items: vec![
                (
                    "SessionStart".into(),
                    json!({"hooks": [{"type": "command", "command": "/opt/memdir hook codex session-start"}]}),
                ),
                (
                    "Stop".into(),
                    json!({"hooks": [{"type": "command", "command": "'/my dir/memdir' hook codex stop"}]}),
                ),
            ],
        }
    }

    #[test]
    fn the_users_hooks_and_comments_stay_and_removal_is_the_inverse() {
        let user = "{\n  // mine\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]\n  },\n  \"other\": 1\n}\n";
        let added = set().add(Some(user)).unwrap();
        assert!(
            added.contains("// mine") && added.contains("notify-send") && added.contains("\"other\": 1"),
            "{added}"
        );
        assert!(set().is_in(Some(&added)).unwrap());
        let stop = parse(&added).unwrap().value().unwrap().to_serde_value().unwrap();
        assert_eq!(stop["hooks"]["Stop"].as_array().unwrap().len(), 2);
        // Adding again replaces memdir's items rather than doubling them.
        let again = set().add(Some(&added)).unwrap();
        assert_eq!(HookSet::registered(&again).unwrap().len(), 2, "{again}");
        let removed = HookSet::remove(&added).unwrap();
        assert!(
            !removed.contains("memdir") && removed.contains("notify-send") && removed.contains("// mine"),
            "{removed}"
        );
        assert!(!removed.contains("SessionStart"), "an event memdir added alone goes: {removed}");
    }

    #[test]
    fn a_created_file_is_removed_to_nothing_and_odd_shapes_are_refused() {
        let created = set().add(None).unwrap();
        assert_eq!(HookSet::remove(&created).unwrap().trim(), "{}");
        assert!(set().add(Some("[1]")).is_err());
        assert!(set().add(Some("{\"hooks\": 3}")).is_err());
        assert!(set().add(Some("{\"hooks\": {\"Stop\": {}}}")).is_err());
    }

    #[test]
    fn only_memdirs_own_hook_commands_count_as_memdirs() {
        for ours in ["memdir hook codex stop", "/usr/bin/memdir hook x y", "'/a b/memdir' hook gemini prompt"]
        {
            assert!(runs_memdir_hook(ours), "{ours}");
        }
        for theirs in
            ["memdir mcp", "echo memdir hook", "/bin/not-memdir hook", "'unterminated hook", "memdirx hook"]
        {
            assert!(!runs_memdir_hook(theirs), "{theirs}");
        }
        assert_eq!(shell_word("/usr/bin/memdir"), "/usr/bin/memdir");
        assert_eq!(shell_word("/a b/it's/memdir"), r"'/a b/it'\''s/memdir'");
        assert!(runs_memdir_hook(&format!("{} hook codex stop", shell_word("/a b/it's/memdir"))));
        let stop = format!("exec /m hook cline stop --llm {}", shell_word("command:my model --fast 'x'"));
        assert_eq!(llm_of(&stop).as_deref(), Some("command:my model --fast 'x'"));
        assert_eq!(llm_of("/m hook codex stop"), None);
    }
}
