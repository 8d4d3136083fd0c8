//! The closed set of memory content types (R1.1).

use std::fmt;

/// One of the four content types a memory can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryType {
    /// Who the user is: role, goals, knowledge.
    User,
    /// Corrections and confirmed approaches about how to work.
    Feedback,
    /// Ongoing work, who/why/when, deadlines.
    Project,
    /// Pointers to external systems and what they are for.
    Reference,
}

impl MemoryType {
    /// All four types, in the order the guidance presents them.
    pub const ALL: [MemoryType; 4] =
        [MemoryType::User, MemoryType::Feedback, MemoryType::Project, MemoryType::Reference];

    /// The lowercase name used in frontmatter, file names and the manifest.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }

    /// Parses an exact frontmatter value (surrounding whitespace ignored); `None` otherwise.
    pub fn parse(value: &str) -> Option<MemoryType> {
        let value = value.trim();
        MemoryType::ALL.into_iter().find(|t| t.as_str() == value)
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
