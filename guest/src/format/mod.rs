//! The on-disk format the terminal agent shares: a memory's type, frontmatter, links and path,
//! its freshness, the scan of a directory, the memory index, the manifest, MEMORY.md, the
//! prompt wrapper, and what a memory cites.

pub mod evidence;
pub mod freshness;
pub mod frontmatter;
pub mod index;
pub mod links;
pub mod manifest;
pub mod memory_path;
pub mod memory_type;
pub mod recall_index;
pub mod scan;
pub mod sessions;
pub mod wrapper;
