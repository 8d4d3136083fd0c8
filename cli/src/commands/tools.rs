//! `memdir tools [--all] [--json]`: the tools memdir offers agents in a project (through `memdir
//! mcp` and the VS Code extension), as the core's catalog writes them, and what their text costs
//! a model's context; `--call NAME` answers one call as an agent's would be (issue 45).

use crate::context::{Context, Failure, Outcome, absolute};
use crate::ops::whole_tree;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `memdir tools`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project (default: the current directory): its settings decide what is offered.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Every tool of the catalog, as `memdir mcp --all-tools` lists them.
    #[arg(long)]
    pub all: bool,
    /// Print JSON: the tools (name, title, description, argument schema, hints), the server's
    /// instructions, and the size of the text a model reads.
    #[arg(long)]
    pub json: bool,
    /// Answer a call of this tool, as an agent's
    /// call through MCP or an editor is answered: the text, or with --json the whole answer.
    /// Exit 1 when the tool refuses.
    #[arg(long, value_name = "NAME")]
    pub call: Option<String>,
    /// The call's arguments, a JSON object as the tool's schema names them.
    #[arg(long, value_name = "JSON", default_value = "{}", requires = "call")]
    pub args: String,
    /// The memory directory to use instead of the project's (with --call).
    #[arg(long, requires = "call")]
    pub memory_dir: Option<PathBuf>,
}

#[derive(Serialize)]
struct Json<'a> {
    tools: &'a [memdir_harness::contract::tools::Tool],
    instructions: &'a str,
    /// Bytes of each tool's name, description and argument schema, summed.
    text_bytes: usize,
    /// About a quarter of that: a model's tokens.
    approx_tokens: usize,
}

/// Runs the command.
pub fn run(ctx: &Context, args: Args, out: &mut dyn Write) -> Outcome {
    if let Some(name) = &args.call {
        return call(ctx, name, &args, out);
    }
    let cwd = absolute(&args.cwd.unwrap_or_else(|| PathBuf::from(".")))?;
    let offer = ctx.core(whole_tree()?)?.tools_offered(&cwd, ctx.env(), args.all)?;
    let text_bytes: usize =
        offer.tools.iter().map(|t| t.name.len() + t.description.len() + t.input_schema.len()).sum();
    let approx_tokens = text_bytes.div_ceil(4);
    if args.json {
        let json = Json { tools: &offer.tools, instructions: &offer.instructions, text_bytes, approx_tokens };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::other)?;
        writeln!(out)?;
        return Ok(());
    }
    for tool in &offer.tools {
        let access = if tool.read_only { "reads" } else { "writes" };
        writeln!(out, "{:<20} {access:<6} {}", tool.name, tool.title)?;
    }
    writeln!(
        out,
        "\n{} tools, {text_bytes} bytes of text a model reads (about {approx_tokens} tokens){}",
        offer.tools.len(),
        if args.all { "" } else { "; --all lists every tool" }
    )?;
    Ok(())
}

/// `--call`: one call, answered as an agent's is.
fn call(ctx: &Context, name: &str, args: &Args, out: &mut dyn Write) -> Outcome {
    let target = crate::ops::target::Target { cwd: args.cwd.clone(), memory_dir: args.memory_dir.clone() };
    // Recall asks $MEMDIR_LLM when it is set, as `memdir recall` does; a person's call keeps no
    // receipt of what an agent was given.
    let mut model = crate::ops::recall::recall_model(ctx, None)?;
    let model = model.as_deref_mut().map(|m| m as &mut dyn memdir_harness::llm::Model);
    let asking = crate::ops::tool::Asking { model, ..Default::default() };
    let (answer, _) = crate::ops::tool::answer(ctx, &target, name, args.args.clone(), asking)??;
    if args.json {
        let structured: serde_json::Value = serde_json::from_str(&answer.structured).unwrap_or_default();
        let json =
            serde_json::json!({ "text": answer.text, "structured": structured, "is_error": answer.is_error });
        serde_json::to_writer_pretty(&mut *out, &json).map_err(std::io::Error::other)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", answer.text.trim_end())?;
    }
    if answer.is_error {
        return Err(Failure { status: 1, message: format!("{name} refused the call") });
    }
    Ok(())
}
