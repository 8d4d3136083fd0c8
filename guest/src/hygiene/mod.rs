//! Keeping memory true: `check` and the near-duplicate finder.

pub mod check;
pub mod similar;
