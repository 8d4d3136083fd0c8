//! Everything that changes memory: the writer and its journal and trash, a model's operations
//! (extraction, the dream, the daily log), the review queue and pauses, and the timeline of what each wrote.

pub mod apply;
pub mod dailylog;
pub mod dream;
pub mod extract;
pub mod gate;
pub mod journal;
pub mod pause;
pub mod pending;
pub mod timeline;
pub mod trash;
pub mod writer;
