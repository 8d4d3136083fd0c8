pub fn load_settings(path: &str) -> Settings {
    todo!()
}
pub const FLAGS: &[&str] = &["--dry-run"];
