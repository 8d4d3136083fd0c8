//! Adding and removing one server entry in a client's configuration file, keeping every other
//! key, the comments and the layout: JSON and JSONC through a concrete syntax tree
//! (jsonc-parser), TOML through toml_edit.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstObjectProp, CstRootNode};
use serde_json::{Map, Value};

/// The name the server is registered under.
pub const NAME: &str = "memdir";

/// How a client's configuration file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON; comments and trailing commas are kept where the client allows them (JSONC).
    Json,
    /// TOML.
    Toml,
}

/// Where in a file the servers live: the format and the keys of the table of servers.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// How the file is written.
    pub format: Format,
    /// The keys, from the root, of the object (or table) that holds the servers.
    pub servers: &'static [&'static str],
}

/// What taking memdir out leaves of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    /// The backup's bytes: the file is exactly what setup made of it.
    Backup(String),
    /// No file: setup created it, and it is exactly what setup wrote.
    Delete,
    /// The file without memdir's entry.
    Edit(String),
}

/// What taking memdir out leaves of `text`, given the backup setup kept of it and how memdir is
/// added to and removed from such a file: the backup's bytes when `text` is exactly what adding
/// memdir to the backup made; no file when it is exactly what adding it to no file made; else
/// `text` without memdir, so what the user or the client changed since stays.
pub fn removal(
    text: &str,
    backup: Option<&str>,
    add: impl Fn(Option<&str>) -> Result<String, String>,
    remove: impl Fn(&str) -> Result<String, String>,
) -> Result<Removal, String> {
    if let Some(backup) = backup
        && add(Some(backup)).ok().as_deref() == Some(text)
    {
        return Ok(Removal::Backup(backup.to_string()));
    }
    if add(None).ok().as_deref() == Some(text) {
        return Ok(Removal::Delete);
    }
    remove(text).map(Removal::Edit)
}

impl Place {
    /// The entry registered as `memdir`, if any.
    pub fn registered(&self, text: &str) -> Result<Option<Value>, String> {
        match self.format {
            Format::Json => {
                let root = parse_json(text)?;
                let Some(servers) = json_servers(&root, self.servers, false)? else { return Ok(None) };
                Ok(last(&servers, NAME).and_then(|p| p.value()).and_then(|v| v.to_serde_value()))
            }
            Format::Toml => {
                let doc = parse_toml(text)?;
                let Some(servers) = toml_servers(&doc, self.servers) else { return Ok(None) };
                Ok(servers.get(NAME).map(toml_to_json))
            }
        }
    }

    /// `text` (None: no file yet) with `entry` registered as `memdir`. An older entry is edited
    /// key by key: only the keys whose values differ are rewritten, so the comments and layout
    /// around the others stay.
    pub fn add(&self, text: Option<&str>, entry: &Value) -> Result<String, String> {
        match self.format {
            Format::Json => {
                let root = parse_json(text.unwrap_or(""))?;
                let servers = json_servers(&root, self.servers, true)?.expect("created");
                let old = last(&servers, NAME);
                match (old.as_ref().and_then(CstObjectProp::object_value), entry) {
                    (Some(object), Value::Object(keys)) => set_json_keys(&object, keys),
                    _ => match old {
                        Some(prop) => prop.set_value(to_cst(entry)),
                        None => {
                            servers.append(NAME, to_cst(entry));
                        }
                    },
                }
                let mut out = root.to_string();
                if text.is_none() && !out.ends_with('\n') {
                    out.push('\n');
                }
                Ok(out)
            }
            Format::Toml => {
                let mut doc = parse_toml(text.unwrap_or(""))?;
                let mut table = doc.as_table_mut();
                for key in self.servers {
                    let item = table.entry(key).or_insert_with(|| {
                        let mut t = toml_edit::Table::new();
                        // `[mcp_servers.memdir]` alone, without an empty `[mcp_servers]` header.
                        t.set_implicit(true);
                        toml_edit::Item::Table(t)
                    });
                    table = item
                        .as_table_mut()
                        .ok_or_else(|| format!("`{key}` is not a table; fix the file by hand"))?;
                }
                match (table.get_mut(NAME).and_then(|i| i.as_table_like_mut()), entry) {
                    (Some(old), Value::Object(keys)) => set_toml_keys(old, keys)?,
                    _ => {
                        table.insert(NAME, toml_edit::Item::Table(json_to_toml_table(entry)?));
                    }
                }
                Ok(doc.to_string())
            }
        }
    }

    /// What `--remove` makes of `text`, a file that registers `entry`, given the backup setup
    /// kept of it (None: there is none). The backup's bytes when `text` is exactly what adding
    /// `entry` to the backup made; no file when it is exactly what adding it to no file made;
    /// else `text` without the entry, so what the user or the client changed since stays.
    pub fn removal(&self, text: &str, entry: &Value, backup: Option<&str>) -> Result<Removal, String> {
        removal(text, backup, |t| self.add(t, entry), |t| self.remove(t))
    }

    /// `text` without the `memdir` entry. A table of servers that setup made and that is now
    /// empty goes too (TOML knows it made it: the table is implicit).
    pub fn remove(&self, text: &str) -> Result<String, String> {
        match self.format {
            Format::Json => {
                let root = parse_json(text)?;
                // Every `memdir` in it: taking the last alone would bring an earlier one to light.
                for prop in
                    json_servers(&root, self.servers, false)?.map(|s| s.properties()).unwrap_or_default()
                {
                    if prop.decoded_name().as_deref() == Some(NAME) {
                        prop.remove();
                    }
                }
                Ok(root.to_string())
            }
            Format::Toml => {
                let mut doc = parse_toml(text)?;
                remove_toml(doc.as_table_mut(), self.servers);
                Ok(doc.to_string())
            }
        }
    }
}

fn parse_json(text: &str) -> Result<CstRootNode, String> {
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| format!("not valid JSON: {e}"))
}

/// The object at `keys` under the root; with `create`, made where missing.
fn json_servers(root: &CstRootNode, keys: &[&str], create: bool) -> Result<Option<CstObject>, String> {
    let mut object = match (root.object_value(), create) {
        (Some(o), _) => o,
        (None, true) if root.value().is_none() => root.object_value_or_set(),
        (None, true) => return Err("the file holds something other than an object".into()),
        (None, false) => return Ok(None),
    };
    for key in keys {
        object = match last(&object, key) {
            Some(prop) => match prop.object_value() {
                Some(o) => o,
                None => return Err(format!("\"{key}\" is not an object; fix the file by hand")),
            },
            None if create => object.object_value_or_set(key),
            None => return Ok(None),
        };
    }
    Ok(Some(object))
}

/// The last property named `name`. A JSON object may hold a key twice, and JSON readers
/// (JSON.parse, VS Code's jsonc, serde_json) keep the last: that is the one the client reads.
fn last(object: &CstObject, name: &str) -> Option<CstObjectProp> {
    object.properties().into_iter().rev().find(|p| p.decoded_name().as_deref() == Some(name))
}

/// Makes `object` hold exactly `keys`, rewriting only the values that differ.
fn set_json_keys(object: &CstObject, keys: &Map<String, Value>) {
    for prop in object.properties() {
        if prop.decoded_name().is_none_or(|name| !keys.contains_key(&name)) {
            prop.remove();
        }
    }
    for (key, value) in in_reading_order(keys) {
        match last(object, key) {
            Some(prop) if prop.value().and_then(|v| v.to_serde_value()).as_ref() == Some(value) => {}
            Some(prop) => prop.set_value(to_cst(value)),
            None => {
                object.append(key, to_cst(value));
            }
        }
    }
}

pub(super) fn to_cst(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(to_cst).collect()),
        Value::Object(map) => {
            CstInputValue::Object(in_reading_order(map).map(|(k, v)| (k.clone(), to_cst(v))).collect())
        }
    }
}

/// An entry's keys as people write them (type, command, args, env first), not alphabetically.
fn in_reading_order(map: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
    const FIRST: [&str; 5] = ["type", "command", "args", "env", "enabled"];
    let rank = |k: &str| FIRST.iter().position(|f| *f == k).unwrap_or(FIRST.len());
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by_key(|(k, _)| rank(k));
    entries.into_iter()
}

fn parse_toml(text: &str) -> Result<toml_edit::DocumentMut, String> {
    text.parse::<toml_edit::DocumentMut>().map_err(|e| format!("not valid TOML: {}", e.message()))
}

fn toml_servers<'a>(doc: &'a toml_edit::DocumentMut, keys: &[&str]) -> Option<&'a toml_edit::Table> {
    let mut table = doc.as_table();
    for key in keys {
        table = table.get(key)?.as_table()?;
    }
    Some(table)
}

fn remove_toml(table: &mut toml_edit::Table, keys: &[&str]) {
    match keys.split_first() {
        None => {
            table.remove(NAME);
        }
        Some((key, rest)) => {
            let Some(inner) = table.get_mut(key).and_then(|i| i.as_table_mut()) else { return };
            remove_toml(inner, rest);
            if inner.is_empty() && inner.is_implicit() {
                table.remove(key);
            }
        }
    }
}

/// Makes `table` hold exactly `keys`, rewriting only the values that differ (each keeps the
/// comment at the end of its line).
fn set_toml_keys(table: &mut dyn toml_edit::TableLike, keys: &Map<String, Value>) -> Result<(), String> {
    let stale: Vec<String> =
        table.iter().map(|(k, _)| k.to_string()).filter(|k| !keys.contains_key(k)).collect();
    for key in stale {
        table.remove(&key);
    }
    for (key, value) in in_reading_order(keys) {
        match table.get_mut(key) {
            Some(item) if toml_to_json(item) == *value => {}
            Some(item) => {
                let mut new = json_to_toml(value)?;
                if let Some(old) = item.as_value() {
                    *new.decor_mut() = old.decor().clone();
                }
                *item = toml_edit::Item::Value(new);
            }
            None => {
                table.insert(key, toml_edit::Item::Value(json_to_toml(value)?));
            }
        }
    }
    Ok(())
}

fn json_to_toml_table(entry: &Value) -> Result<toml_edit::Table, String> {
    let Value::Object(map) = entry else { return Err("a server entry is a table".into()) };
    let mut table = toml_edit::Table::new();
    for (key, value) in in_reading_order(map) {
        table.insert(key, toml_edit::Item::Value(json_to_toml(value)?));
    }
    Ok(table)
}

fn json_to_toml(value: &Value) -> Result<toml_edit::Value, String> {
    Ok(match value {
        Value::Bool(b) => (*b).into(),
        Value::String(s) => s.as_str().into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or_default().into(),
        },
        Value::Array(items) => {
            toml_edit::Value::Array(items.iter().map(json_to_toml).collect::<Result<_, _>>()?)
        }
        Value::Object(map) => {
            let mut inline = toml_edit::InlineTable::new();
            for (k, v) in map {
                inline.insert(k, json_to_toml(v)?);
            }
            toml_edit::Value::InlineTable(inline)
        }
        Value::Null => return Err("TOML has no null".into()),
    })
}

fn toml_to_json(item: &toml_edit::Item) -> Value {
    match item {
        toml_edit::Item::Value(v) => toml_value_to_json(v),
        toml_edit::Item::Table(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.to_string(), toml_to_json(v))).collect())
        }
        _ => Value::Null,
    }
}

fn toml_value_to_json(value: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match value {
        T::String(s) => Value::String(s.value().clone()),
        T::Integer(i) => (*i.value()).into(),
        T::Float(f) => serde_json::Number::from_f64(*f.value()).map(Value::Number).unwrap_or(Value::Null),
        T::Boolean(b) => Value::Bool(*b.value()),
        T::Datetime(d) => Value::String(d.value().to_string()),
        T::Array(a) => Value::Array(a.iter().map(toml_value_to_json).collect()),
        T::InlineTable(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.to_string(), toml_value_to_json(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const JSONC: Place = Place { format: Format::Json, servers: &["mcpServers"] };
    const TOML: Place = Place { format: Format::Toml, servers: &["mcp_servers"] };

    fn entry() -> Value {
        json!({ "command": "/opt/memdir", "args": ["mcp"] })
    }

    #[test]
    fn jsonc_keeps_comments_and_other_keys_and_removal_is_the_inverse() {
        let before = "{\n  // the theme\n  \"theme\": \"dark\", /* trailing */\n  \"mcpServers\": {\n    \"other\": { \"command\": \"x\" },\n  },\n}\n";
        let after = JSONC.add(Some(before), &entry()).unwrap();
        assert!(after.contains("// the theme") && after.contains("/* trailing */"), "{after}");
        assert!(after.contains("\"other\""), "{after}");
        assert_eq!(JSONC.registered(&after).unwrap(), Some(entry()));
        assert_eq!(JSONC.add(Some(&after), &entry()).unwrap(), after, "a second add changes nothing");
        assert_eq!(JSONC.registered(&JSONC.remove(&after).unwrap()).unwrap(), None);
    }

    #[test]
    fn json_is_created_when_missing_and_a_stale_entry_is_replaced() {
        let made = JSONC.add(None, &entry()).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&made).unwrap(),
            json!({ "mcpServers": { "memdir": entry() } })
        );
        let moved = json!({ "command": "/new/memdir", "args": ["mcp"] });
        let replaced = JSONC.add(Some(&made), &moved).unwrap();
        assert_eq!(JSONC.registered(&replaced).unwrap(), Some(moved));
    }

    #[test]
    fn json_that_is_not_an_object_is_refused() {
        assert!(JSONC.add(Some("[1, 2]"), &entry()).unwrap_err().contains("other than an object"));
        assert!(JSONC.add(Some("{\"mcpServers\": 3}"), &entry()).unwrap_err().contains("not an object"));
        assert!(JSONC.add(Some("{\"a\": "), &entry()).unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn an_older_entry_is_edited_key_by_key_keeping_the_comments_in_it() {
        let before = "{\"mcpServers\": {\"memdir\": {\n  // mine\n  \"command\": \"/old\", \"args\": [\"mcp\"], \"env\": {\"K\": \"1\"}\n}}}\n";
        let moved = json!({ "command": "/opt/memdir", "args": ["mcp"], "env": { "K": "1" } });
        let after = JSONC.add(Some(before), &moved).unwrap();
        assert_eq!(after, before.replace("/old", "/opt/memdir"));
    }

    /// issue 24, defect 16: JSON readers take the last of a duplicated key.
    #[test]
    fn a_duplicated_key_is_read_and_written_where_json_readers_look() {
        let text = r#"{"mcpServers": {"memdir": {"command": "a"}}, "mcpServers": {"memdir": {"command": "b"}, "memdir": {"command": "c"}}}"#;
        assert_eq!(JSONC.registered(text).unwrap(), Some(json!({ "command": "c" })));
        let added = JSONC.add(Some(text), &entry()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&added).unwrap()["mcpServers"]["memdir"], entry());
        let removed = JSONC.remove(&added).unwrap();
        assert_eq!(JSONC.registered(&removed).unwrap(), None, "{removed}");
    }

    #[test]
    fn toml_keeps_comments_and_removal_restores_the_bytes() {
        let before = "# my settings\nmodel = \"o3\" # inline\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let after = TOML.add(Some(before), &entry()).unwrap();
        assert!(after.contains("[mcp_servers.memdir]"), "{after}");
        assert_eq!(TOML.registered(&after).unwrap(), Some(entry()));
        assert_eq!(TOML.remove(&after).unwrap(), before);
        let fresh = "# only comments\n";
        assert_eq!(TOML.remove(&TOML.add(Some(fresh), &entry()).unwrap()).unwrap(), fresh);
        assert!(TOML.add(Some("mcp_servers = 3"), &entry()).unwrap_err().contains("not a table"));
    }
}
