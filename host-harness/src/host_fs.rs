//! The `host-fs` import, implemented for the component on top of the host's [`memdir_core::Fs`]: only type
//! conversions live here, the behaviour is the same one the native core uses.

use crate::bindings::memdir::memory::{host_fs, types as wit};
use crate::component::HostState;
use memdir_core::{EntryKind, FsError};

impl wit::Host for HostState {}

impl host_fs::Host for HostState {
    fn list_dir(&mut self, path: String) -> Result<Vec<wit::DirEntry>, wit::FsError> {
        let entries = self.fs.list_dir(&path).map_err(to_wit)?;
        Ok(entries
            .into_iter()
            .map(|e| wit::DirEntry { name: e.name, kind: kind(e.kind), size: e.size, mtime_ms: e.mtime_ms })
            .collect())
    }

    fn read_head(
        &mut self,
        path: String,
        max_lines: u32,
        max_bytes: u32,
    ) -> Result<wit::FileHead, wit::FsError> {
        let h = self.fs.read_head(&path, max_lines, max_bytes).map_err(to_wit)?;
        Ok(wit::FileHead { data: h.data, size: h.size, mtime_ms: h.mtime_ms, truncated: h.truncated })
    }

    fn stat(&mut self, path: String) -> Result<wit::FileStat, wit::FsError> {
        let s = self.fs.stat(&path).map_err(to_wit)?;
        Ok(wit::FileStat { kind: kind(s.kind), size: s.size, mtime_ms: s.mtime_ms })
    }

    fn real_path(&mut self, path: String) -> Result<String, wit::FsError> {
        self.fs.real_path(&path).map_err(to_wit)
    }

    fn read_file(&mut self, path: String, max_bytes: u64) -> Result<Vec<u8>, wit::FsError> {
        self.fs.read_file(&path, max_bytes).map_err(to_wit)
    }

    fn write_file(&mut self, path: String, data: Vec<u8>) -> Result<(), wit::FsError> {
        self.fs.write_file(&path, &data).map_err(to_wit)
    }

    fn append_file(&mut self, path: String, data: Vec<u8>) -> Result<(), wit::FsError> {
        self.fs.append_file(&path, &data).map_err(to_wit)
    }

    fn rename(&mut self, from: String, to: String) -> Result<(), wit::FsError> {
        self.fs.rename(&from, &to).map_err(to_wit)
    }

    fn remove_file(&mut self, path: String) -> Result<(), wit::FsError> {
        self.fs.remove_file(&path).map_err(to_wit)
    }

    fn create_dir_all(&mut self, path: String) -> Result<(), wit::FsError> {
        self.fs.create_dir_all(&path).map_err(to_wit)
    }

    fn lock(&mut self, path: String, timeout_ms: u32) -> Result<(), wit::FsError> {
        self.fs.lock(&path, timeout_ms).map_err(to_wit)
    }

    fn unlock(&mut self, path: String) -> Result<(), wit::FsError> {
        self.fs.unlock(&path).map_err(to_wit)
    }
}

fn kind(k: EntryKind) -> wit::EntryKind {
    match k {
        EntryKind::File => wit::EntryKind::File,
        EntryKind::Dir => wit::EntryKind::Dir,
        EntryKind::Symlink => wit::EntryKind::Symlink,
        EntryKind::Other => wit::EntryKind::Other,
    }
}

fn to_wit(e: FsError) -> wit::FsError {
    match e {
        FsError::NotFound(m) => wit::FsError::NotFound(m),
        FsError::PermissionDenied(m) => wit::FsError::PermissionDenied(m),
        FsError::OutsideRoot(m) => wit::FsError::OutsideRoot(m),
        FsError::ReadOnly(m) => wit::FsError::ReadOnly(m),
        FsError::NotADirectory(m) => wit::FsError::NotADirectory(m),
        FsError::IsADirectory(m) => wit::FsError::IsADirectory(m),
        FsError::InvalidPath(m) => wit::FsError::InvalidPath(m),
        FsError::Other(m) => wit::FsError::Other(m),
    }
}
