//! Showing a change as the lines it changes: setup's edits, review's proposals.

use std::io::Write;

/// A diff of the changed lines, with the unchanged lines around them left out.
pub fn lines(before: &str, after: &str, out: &mut dyn Write) -> std::io::Result<()> {
    let (a, b): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    writeln!(out, "  @@ line {} @@", prefix + 1)?;
    for line in &a[prefix..a.len() - suffix] {
        writeln!(out, "  -{line}")?;
    }
    for line in &b[prefix..b.len() - suffix] {
        writeln!(out, "  +{line}")?;
    }
    Ok(())
}
