//! Who decides what is written (issue 28, item 1): `memoryWrites` in the user's settings, per
//! memory type or for all of them.
//!
//! - `auto`: extraction, the dream and the hooks write as they always have.
//! - `review`: they propose instead; proposals wait in the memory directory's `.pending/` for
//!   the user (`pending.rs`). A save the user asked for still writes.
//! - `off`: recall only. Nothing writes memory of that type, saves included.
//!
//! The user's settings decide; a project's settings may only make a type stricter (a cloned
//! repository cannot turn writing back on). `MEMDIR_MEMORY_WRITES` overrides both, for one run.

use crate::format::memory_type::MemoryType;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How memory of one type may be written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteMode {
    /// Background writers write.
    #[default]
    Auto,
    /// Background writers propose; the user accepts or rejects.
    Review,
    /// Nothing writes.
    Off,
}

impl WriteMode {
    fn parse(text: &str) -> Option<WriteMode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(WriteMode::Auto),
            "review" => Some(WriteMode::Review),
            "off" => Some(WriteMode::Off),
            _ => None,
        }
    }

    /// `auto`, `review` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteMode::Auto => "auto",
            WriteMode::Review => "review",
            WriteMode::Off => "off",
        }
    }
}

/// The mode of one memory type, and the rule that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct TypePolicy {
    /// The type the rule is for.
    pub memory_type: MemoryType,
    /// How it may be written.
    pub mode: WriteMode,
    /// `default`, `env`, or `settings:<path>` (the file whose `memoryWrites` decided).
    pub decided_by: String,
}

/// The write policy in force: one entry per memory type, in [`MemoryType::ALL`]'s order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WritePolicy(pub Vec<TypePolicy>);

impl Default for WritePolicy {
    fn default() -> Self {
        WritePolicy(
            MemoryType::ALL
                .into_iter()
                .map(|memory_type| TypePolicy {
                    memory_type,
                    mode: WriteMode::Auto,
                    decided_by: "default".into(),
                })
                .collect(),
        )
    }
}

impl WritePolicy {
    /// The rule for `memory_type`.
    pub fn rule(&self, memory_type: MemoryType) -> TypePolicy {
        self.0.iter().find(|p| p.memory_type == memory_type).cloned().unwrap_or(TypePolicy {
            memory_type,
            mode: WriteMode::Auto,
            decided_by: "default".into(),
        })
    }

    /// The refusal under `off` for a memory of `memory_type`, or of a type that cannot be told.
    pub fn refusal_of(&self, memory_type: Option<MemoryType>) -> String {
        match memory_type.and_then(|t| self.refusal(t)) {
            Some(why) => why,
            None => "memory writes are off (`memoryWrites`) and this memory's type cannot be told, so the strictest rule holds: memdir only recalls it".into(),
        }
    }

    /// The strictest mode of any type: the rule for a memory whose type cannot be told.
    pub fn strictest(&self) -> WriteMode {
        self.0.iter().map(|r| r.mode).max().unwrap_or_default()
    }

    /// The mode for a memory of `memory_type`; one whose type cannot be told gets the strictest
    /// rule in force, so no rule is bypassed by leaving `type:` out.
    pub fn mode_of(&self, memory_type: Option<MemoryType>) -> WriteMode {
        memory_type.map_or_else(|| self.strictest(), |t| self.mode(t))
    }

    /// The mode for `memory_type`.
    pub fn mode(&self, memory_type: MemoryType) -> WriteMode {
        self.rule(memory_type).mode
    }

    /// Why nothing may write `memory_type`, when its mode is `off`: a refusal naming the rule.
    pub fn refusal(&self, memory_type: MemoryType) -> Option<String> {
        let rule = self.rule(memory_type);
        (rule.mode == WriteMode::Off).then(|| {
            format!(
                "memory writes are off for {memory_type} memories (`memoryWrites`, decided by {}): memdir only recalls them",
                rule.decided_by
            )
        })
    }

    /// The policy from the environment and the settings files, in precedence order (the
    /// project's local and shared settings, then the user's). `user_settings` names the user's.
    pub fn resolve(
        env_value: Option<&str>,
        settings: &[(String, Value)],
        user_settings: &str,
        diagnostics: &mut Vec<String>,
    ) -> WritePolicy {
        let mut policy = WritePolicy::default();
        if let Some(text) = env_value {
            match WriteMode::parse(text) {
                Some(mode) => {
                    for rule in &mut policy.0 {
                        rule.mode = mode;
                        rule.decided_by = "env".into();
                    }
                    return policy;
                }
                None => diagnostics
                    .push(format!("MEMDIR_MEMORY_WRITES is {text:?}, not auto, review or off; ignored")),
            }
        }
        // The user's settings first: they set the mode.
        let user = settings.iter().find(|(path, _)| path == user_settings);
        if let Some((path, value)) = user
            && let Some(setting) = value.get("memoryWrites")
        {
            for (memory_type, mode) in modes(setting, path, diagnostics) {
                let rule = policy.0.iter_mut().find(|r| r.memory_type == memory_type).expect("every type");
                *rule = TypePolicy { memory_type, mode, decided_by: format!("settings:{path}") };
            }
        }
        // Then a project's: only ever stricter.
        for (path, value) in settings.iter().filter(|(path, _)| path != user_settings) {
            let Some(setting) = value.get("memoryWrites") else { continue };
            for (memory_type, mode) in modes(setting, path, diagnostics) {
                let rule = policy.0.iter_mut().find(|r| r.memory_type == memory_type).expect("every type");
                if mode > rule.mode {
                    *rule = TypePolicy { memory_type, mode, decided_by: format!("settings:{path}") };
                }
            }
        }
        policy
    }
}

/// What one `memoryWrites` value says, per type: a mode for all, or
/// `{"default": mode, "<type>": mode, …}`. Anything else is a diagnostic and says nothing.
fn modes(setting: &Value, path: &str, diagnostics: &mut Vec<String>) -> Vec<(MemoryType, WriteMode)> {
    let bad = |diagnostics: &mut Vec<String>, what: &Value| {
        diagnostics.push(format!(
            "{path}: `memoryWrites` must be \"auto\", \"review\" or \"off\", or an object of those by type (\"default\", \"user\", \"feedback\", \"project\", \"reference\"), not {what}; ignored"
        ))
    };
    match setting {
        Value::String(text) => match WriteMode::parse(text) {
            Some(mode) => MemoryType::ALL.into_iter().map(|t| (t, mode)).collect(),
            None => {
                bad(diagnostics, setting);
                Vec::new()
            }
        },
        Value::Object(map) => {
            let mut out = Vec::new();
            let default = match map.get("default") {
                None => None,
                Some(v) => match v.as_str().and_then(WriteMode::parse) {
                    Some(mode) => Some(mode),
                    None => {
                        bad(diagnostics, v);
                        None
                    }
                },
            };
            for (key, v) in map.iter().filter(|(k, _)| *k != "default") {
                match (MemoryType::parse(key), v.as_str().and_then(WriteMode::parse)) {
                    (Some(memory_type), Some(mode)) => out.push((memory_type, mode)),
                    _ => bad(diagnostics, &serde_json::json!({ key: v })),
                }
            }
            if let Some(mode) = default {
                for memory_type in MemoryType::ALL {
                    if !out.iter().any(|(t, _)| *t == memory_type) {
                        out.push((memory_type, mode));
                    }
                }
            }
            out
        }
        other => {
            bad(diagnostics, other);
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const USER: &str = "/h/.claude/settings.json";
    const PROJECT: &str = "/p/.claude/settings.json";

    fn resolve(env: Option<&str>, settings: &[(&str, Value)]) -> (WritePolicy, Vec<String>) {
        let settings: Vec<(String, Value)> =
            settings.iter().map(|(p, v)| (p.to_string(), v.clone())).collect();
        let mut diagnostics = Vec::new();
        (WritePolicy::resolve(env, &settings, USER, &mut diagnostics), diagnostics)
    }

    #[test]
    fn the_user_decides_per_type_and_a_project_may_only_be_stricter() {
        let (policy, diagnostics) = resolve(
            None,
            &[
                (PROJECT, json!({"memoryWrites": {"project": "off", "user": "auto"}})),
                (USER, json!({"memoryWrites": {"default": "auto", "project": "review", "user": "review"}})),
            ],
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(policy.mode(MemoryType::Feedback), WriteMode::Auto);
        assert_eq!(
            policy.rule(MemoryType::Project),
            TypePolicy {
                memory_type: MemoryType::Project,
                mode: WriteMode::Off,
                decided_by: format!("settings:{PROJECT}")
            }
        );
        // The project's "auto" cannot loosen the user's "review".
        assert_eq!(policy.rule(MemoryType::User).decided_by, format!("settings:{USER}"));
        assert_eq!(policy.mode(MemoryType::User), WriteMode::Review);
        assert!(policy.refusal(MemoryType::Project).unwrap().contains("off for project memories"));
        assert_eq!(policy.refusal(MemoryType::User), None);
    }

    #[test]
    fn the_environment_overrides_and_bad_values_are_diagnostics() {
        let (policy, _) = resolve(Some("OFF"), &[(USER, json!({"memoryWrites": "auto"}))]);
        assert!(MemoryType::ALL.iter().all(|t| policy.mode(*t) == WriteMode::Off));
        let (policy, diagnostics) = resolve(
            Some("sometimes"),
            &[(USER, json!({"memoryWrites": {"default": 3, "secret": "off", "user": "never"}}))],
        );
        assert_eq!(policy, WritePolicy::default());
        assert_eq!(diagnostics.len(), 4, "{diagnostics:?}");
        let (policy, diagnostics) = resolve(None, &[(USER, json!({"memoryWrites": ["off"]}))]);
        assert_eq!((policy, diagnostics.len()), (WritePolicy::default(), 1));
    }
}
