//! Where a memory lives: the project's own directory, its `team/` folder (R10.1), or a memory
//! the project shares beyond itself — the user's, for every project, or a named group's
//! (issue 28).

use crate::context::paths::MemoryLocation;
use crate::format::memory_type::MemoryType;

/// The team folder inside a memory directory.
pub const TEAM_DIR: &str = "team";

/// Where a memory lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The project's own auto-memory directory.
    Private,
    /// `team/` inside it, shared with the team, with its own MEMORY.md.
    Team,
    /// The user-wide directory, recalled in every project.
    User,
    /// The directory of the group of projects this one belongs to.
    Group,
}

impl Scope {
    /// Every scope, in the order a person is offered them.
    pub const ALL: [Scope; 4] = [Scope::Private, Scope::Team, Scope::User, Scope::Group];

    /// Who a type belongs to by default when team memory is on: user and feedback are
    /// personal, project and reference are shared.
    pub fn default_for(memory_type: MemoryType) -> Scope {
        match memory_type {
            MemoryType::User | MemoryType::Feedback => Scope::Private,
            MemoryType::Project | MemoryType::Reference => Scope::Team,
        }
    }

    /// `private`, `team`, `user` or `group`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Private => "private",
            Scope::Team => "team",
            Scope::User => "user",
            Scope::Group => "group",
        }
    }
}

/// A memory directory shared beyond the project.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shared {
    /// [`Scope::User`] or [`Scope::Group`].
    pub scope: Scope,
    /// The directory, absolute.
    pub dir: String,
    /// How the agent is told whose it is: `user-wide`, or `shared by the group "web"`.
    pub label: String,
}

/// The shared memories a project recalls beside its own: the user's, then its group's.
pub fn shared(location: &MemoryLocation) -> Vec<Shared> {
    let user = location.user_memory_dir.iter().map(|dir| Shared {
        scope: Scope::User,
        dir: dir.clone(),
        label: "user-wide".to_string(),
    });
    let group = location.group.iter().map(|g| Shared {
        scope: Scope::Group,
        dir: g.dir.clone(),
        label: format!("shared by the group \"{}\"", g.name),
    });
    user.chain(group).filter(|s| s.dir != location.memory_dir).collect()
}

/// The shared directory `path` (absolute) lies in, if any.
pub fn shared_holding<'a>(shared: &'a [Shared], path: &str) -> Option<&'a Shared> {
    shared.iter().find(|s| crate::base::fs::is_within(path, &s.dir) && path != s.dir)
}
