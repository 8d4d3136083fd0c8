//! The tool catalog: the names, descriptions and argument schemas every host that offers tools
//! shows a model. It is data (`tools.json`), kept here so that one text serves every client.

use serde::{Deserialize, Serialize};

/// One tool, as a model is shown it (the WIT `tool`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Tool {
    /// What the model calls, e.g. `memory_save`.
    pub name: String,
    /// A short title, for people.
    pub title: String,
    /// What the tool does and when to call it, written for a model.
    pub description: String,
    /// Its arguments: a JSON Schema object, as JSON text.
    pub input_schema: String,
    /// It changes nothing.
    pub read_only: bool,
    /// It may remove or overwrite what a memory held.
    pub destructive: bool,
    /// Calling it again with the same arguments changes nothing further.
    pub idempotent: bool,
    /// It reaches beyond the memory directory (a git remote).
    pub open_world: bool,
}

/// A tool as `tools.json` writes it: the schema as JSON, not yet as text.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Entry {
    name: String,
    title: String,
    description: String,
    input_schema: serde_json::Value,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
}

/// Every tool, in the order a client lists them.
pub fn catalog() -> Vec<Tool> {
    let entries: Vec<Entry> =
        serde_json::from_str(include_str!("tools.json")).expect("tools.json is checked by the tests");
    entries
        .into_iter()
        .map(|e| Tool {
            name: e.name,
            title: e.title,
            description: e.description,
            input_schema: e.input_schema.to_string(),
            read_only: e.read_only,
            destructive: e.destructive,
            idempotent: e.idempotent,
            open_world: e.open_world,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Every schema is an object schema that refuses what it does not name, and everything it
    /// requires it names; names are unique, and a read-only tool destroys nothing.
    #[test]
    fn the_catalog_is_well_formed() {
        let tools = catalog();
        assert_eq!(tools.len(), 11);
        let mut names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len());
        for tool in &tools {
            assert!(tool.name.starts_with("memory_"), "{}", tool.name);
            assert!(!(tool.read_only && tool.destructive), "{}", tool.name);
            let schema: Value = serde_json::from_str(&tool.input_schema).unwrap();
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
            let properties = schema["properties"].as_object().unwrap();
            for required in schema["required"].as_array().into_iter().flatten() {
                assert!(properties.contains_key(required.as_str().unwrap()), "{}: {required}", tool.name);
            }
            for (name, property) in properties {
                assert!(
                    property["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{}.{name}",
                    tool.name
                );
            }
        }
    }
}
