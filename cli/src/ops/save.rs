//! What a save did, in words the CLI and the MCP tool share.

/// One line saying what a rename or a supersession did, when the save did one (R1.7).
pub fn rename_note(report: &memdir_core::writer::SaveReport) -> Option<String> {
    let old = report.renamed_from.as_deref()?;
    if let Some(replaced) = &report.replaced {
        let files = if report.links_rewritten.is_empty() {
            "none".to_string()
        } else {
            report.links_rewritten.join(", ")
        };
        return Some(format!("replaced {replaced} ({old}), removed; [[{old}]] links rewritten in: {files}"));
    }
    let files = if report.links_rewritten.is_empty() {
        "none".to_string()
    } else {
        report.links_rewritten.join(", ")
    };
    Some(format!("renamed from {old}; [[{old}]] links rewritten in: {files}"))
}
