// The part of clap that memdir's command line uses: long options (`--name value`,
// `--name=value`), flags, positionals, `--`, global options, subcommands, value parsers,
// possible values, `conflicts_with`, `requires`, and clap's messages for their errors (without
// the usage line clap adds to some of them).
//
// A command is described as
//   { options: { "memory-dir": { value: "MEMORY_DIR", path: true, conflicts: ["cwd"] }, json: {} },
//     positionals: [{ name: "QUERY", key: "query", required: true }],
//     subcommands: { ... } }
// Option keys come back camelCased (`memoryDir`); repeated options (`multiple`) as arrays.

/** A command line clap would refuse; the message is what clap prints, status 2. */
export class UsageError extends Error {}

const fail = (text) => {
  throw new UsageError(`error: ${text}\n\nFor more information, try '--help'.\n`);
};

/** `table[key]` when `table` has it as its own key (so `--toString` is no option). */
const own = (table, key) => (table && Object.hasOwn(table, key) ? table[key] : undefined);

const camel = (name) => name.replace(/-(.)/g, (_, c) => c.toUpperCase());

const showOption = (name, spec) => (spec.value ? `--${name} <${spec.value}>` : `--${name}`);
const showPositional = (spec) => (spec.required ? `<${spec.name}>` : `[${spec.name}]`);

/** The value, after the checks clap's value parser for `spec` makes. */
function parseValue(value, spec, shown) {
  if (spec.path && value === "") fail(`a value is required for '${shown}' but none was supplied`);
  if (spec.choices && !spec.choices.includes(value)) {
    fail(`invalid value '${value}' for '${shown}'\n  [possible values: ${spec.choices.join(", ")}]`);
  }
  if (!spec.parse) return value;
  try {
    return spec.parse(value);
  } catch (message) {
    if (typeof message !== "string") throw message;
    return fail(`invalid value '${value}' for '${shown}': ${message}`);
  }
}

/** One level of the command line: its options, positionals and, maybe, a subcommand. */
class Level {
  constructor(name, spec, globals, globalValues) {
    this.name = name;
    this.spec = spec;
    this.globals = globals;
    this.globalValues = globalValues;
    this.values = {};
    this.used = []; // options' and positionals' names in the order given, for clap's messages
  }

  option(name) {
    const spec = own(this.spec.options, name) ?? own(this.globals, name);
    if (!spec) fail(`unexpected argument '--${name}' found`);
    return spec;
  }

  /** Stores `--name` (with its value), refusing a second use of a single-valued one. */
  store(name, spec, value) {
    const into = own(this.globals, name) ? this.globalValues : this.values;
    const key = camel(name);
    if (spec.multiple) {
      (into[key] ??= []).push(value);
    } else {
      if (Object.hasOwn(into, key)) fail(`the argument '${showOption(name, spec)}' cannot be used multiple times`);
      into[key] = value;
    }
    if (!this.used.includes(name)) this.used.push(name);
  }

  /** Parses `tokens`; returns the subcommand's name and tokens when one is named. */
  parse(tokens) {
    let onlyPositionals = false;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      if (!onlyPositionals && token === "--") {
        onlyPositionals = true;
      } else if (!onlyPositionals && token.startsWith("--")) {
        i = this.longOption(tokens, i);
      } else if (!onlyPositionals && token.startsWith("-") && token !== "-") {
        fail(`unexpected argument '${token}' found`);
      } else if (this.spec.subcommands) {
        if (!own(this.spec.subcommands, token)) fail(`unrecognized subcommand '${token}'`);
        return { name: token, rest: tokens.slice(i + 1) };
      } else {
        this.positional(token);
      }
    }
    if (this.spec.subcommands) fail(`'${this.name}' requires a subcommand but one was not provided`);
    return undefined;
  }

  /** `--name`, `--name=value` or `--name value` at `tokens[i]`; returns the last index used. */
  longOption(tokens, i) {
    const text = tokens[i].slice(2);
    const eq = text.indexOf("=");
    const name = eq < 0 ? text : text.slice(0, eq);
    const spec = this.option(name);
    const shown = showOption(name, spec);
    if (!spec.value) {
      if (eq >= 0) fail(`unexpected value '${text.slice(eq + 1)}' for '${shown}' found; no more were expected`);
      this.store(name, spec, true);
      return i;
    }
    let value = eq < 0 ? tokens[i + 1] : text.slice(eq + 1);
    if (eq < 0) {
      const isFlag = value !== undefined && value.startsWith("-") && value !== "-" && !spec.hyphen;
      if (value === undefined || isFlag) fail(`a value is required for '${shown}' but none was supplied`);
      i++;
    }
    this.store(name, spec, parseValue(value, spec, shown));
    return i;
  }

  positional(token) {
    const spec = this.spec.positionals?.find((p) => !this.used.includes(p.name));
    if (!spec) fail(`unexpected argument '${token}' found`);
    this.used.push(spec.name);
    this.values[spec.key] = parseValue(token, spec, showPositional(spec));
  }

  /** How clap shows the argument `id` (an option's name or a positional's) in messages. */
  shown(id) {
    const option = own(this.spec.options, id);
    return option ? showOption(id, option) : showPositional(this.spec.positionals.find((p) => p.name === id));
  }

  conflicts(a, b) {
    const of = (id) => own(this.spec.options, id)?.conflicts ?? [];
    return a !== b && (of(a).includes(b) || of(b).includes(a));
  }

  /** clap's checks once everything is parsed: conflicts first, then missing arguments. */
  validate() {
    for (const id of this.used) {
      const other = this.used.find((o) => this.conflicts(id, o));
      if (other) fail(`the argument '${this.shown(id)}' cannot be used with '${this.shown(other)}'`);
    }
    const options = this.spec.options ?? {};
    const wanted = (name, spec) => spec.required || this.used.some((u) => own(options, u)?.requires?.includes(name));
    const missing = Object.entries(options)
      .filter(([name, spec]) => !this.used.includes(name) && wanted(name, spec))
      .map(([name]) => this.shown(name));
    for (const spec of this.spec.positionals ?? []) {
      if (spec.required && !this.used.includes(spec.name)) missing.push(showPositional(spec));
    }
    if (missing.length) fail(`the following required arguments were not provided:\n  ${missing.join("\n  ")}`);
    // Absent flags read false and absent repeated options empty, as clap's fields do.
    for (const [name, spec] of Object.entries(options)) {
      if (!spec.value) this.values[camel(name)] ??= false;
      if (spec.multiple) this.values[camel(name)] ??= [];
    }
  }
}

/**
 * Parses `argv` (without the program name) against `program` ({ globals, subcommands }).
 * Returns { globals, path: ["session", "compact"], args } or throws a UsageError.
 */
export function parseArgs(argv, program) {
  const globalValues = {};
  const path = [];
  let spec = program;
  let tokens = argv;
  for (;;) {
    const level = new Level(["memdir", ...path].join(" "), spec, program.globals, globalValues);
    const sub = level.parse(tokens);
    if (!sub) {
      level.validate();
      return { globals: globalValues, path, args: level.values };
    }
    path.push(sub.name);
    spec = spec.subcommands[sub.name];
    tokens = sub.rest;
  }
}
