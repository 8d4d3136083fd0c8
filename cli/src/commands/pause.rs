//! `memdir pause` and `memdir resume`: stop every automatic write for a project (extraction, the
//! hooks' stop, the dream) without turning recall off, for a while or until resumed (issue 28,
//! item 4). The core keeps the state and every writer reads it there.

use crate::context::{Context, Failure, Outcome};
use crate::ops::target::Target;
use memdir_harness::contract::time::iso_millis;
use std::io::Write;

/// Arguments of `memdir pause`.
#[derive(Debug, clap::Args)]
pub struct PauseArgs {
    /// How long: a number and a unit, `m` (minutes), `h` (hours) or `d` (days), e.g. `90m`,
    /// `2h`, `7d`. Without it the pause holds until `memdir resume`.
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<i64>,
    #[command(flatten)]
    pub target: Target,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `memdir resume`.
#[derive(Debug, clap::Args)]
pub struct ResumeArgs {
    #[command(flatten)]
    pub target: Target,
}

/// `90m`, `2h`, `7d` as milliseconds; at most a year.
fn parse_duration(text: &str) -> Result<i64, String> {
    let bad = || format!("{text:?} is not a duration: write a number and m, h or d (e.g. 90m, 2h, 7d)");
    let text = text.trim();
    let unit = text.chars().next_back().ok_or_else(bad)?;
    let count: i64 = text[..text.len() - unit.len_utf8()].parse().map_err(|_| bad())?;
    let unit_ms = match unit {
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        _ => return Err(bad()),
    };
    let ms = count.checked_mul(unit_ms).filter(|ms| (1..=366 * 86_400_000).contains(ms));
    ms.ok_or_else(|| format!("{text:?}: a pause lasts from a minute to a year"))
}

/// Runs `memdir pause`.
pub fn pause(ctx: &Context, args: PauseArgs, out: &mut dyn Write) -> Outcome {
    let (target, dir, mut core) = args.target.open(ctx)?;
    let now = ctx.now_ms();
    let pause = core.pause(&target, now, args.duration.map(|d| now + d))?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &pause).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(());
    }
    match pause.until_ms {
        Some(until) => writeln!(out, "automatic memory writes paused until {} for {dir}", iso_millis(until))?,
        None => writeln!(out, "automatic memory writes paused for {dir} until `memdir resume`")?,
    }
    writeln!(
        out,
        "extraction, the hooks' stop and the dream stand aside; recall and saves you ask for go on"
    )?;
    Ok(())
}

/// Runs `memdir resume`.
pub fn resume(ctx: &Context, args: ResumeArgs, out: &mut dyn Write) -> Outcome {
    let (target, dir, mut core) = args.target.open(ctx)?;
    let was = core.resume(&target, ctx.now_ms()).map_err(Failure::from)?;
    if was {
        writeln!(out, "automatic memory writes resumed for {dir}")?;
    } else {
        writeln!(out, "automatic memory writes were not paused for {dir}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations_take_minutes_hours_and_days_within_a_year() {
        assert_eq!(parse_duration("90m"), Ok(90 * 60_000));
        assert_eq!(parse_duration("2h"), Ok(2 * 3_600_000));
        assert_eq!(parse_duration("7d"), Ok(7 * 86_400_000));
        for bad in ["", "h", "2", "2w", "-1h", "0m", "400d", "99999999999999999d", "1.5h", "２h", "h２", "+"]
        {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
