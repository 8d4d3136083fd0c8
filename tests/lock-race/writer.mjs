// One Node writer of the lock race (see run): saves COUNT memories named PREFIX-N into DIR
// through the jco-loaded component, each save taking the writers' lock of the Node host.
//
//   node writer.mjs DIR PREFIX COUNT

import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { MemoryCore, ConfinedFs } = createRequire(import.meta.url)(path.resolve(here, "../../packages/core-js"));
const [dir, prefix, count] = [process.argv[2], process.argv[3], Number(process.argv[4])];
const core = new MemoryCore();
core.scan(new ConfinedFs().grantRead("/"), dir, 0n); // instantiated before the start
fs.writeFileSync(path.join(dir, "..", `ready-${prefix}`), "");
const sleeper = new Int32Array(new SharedArrayBuffer(4));
while (!fs.existsSync(path.join(dir, "..", "go"))) Atomics.wait(sleeper, 0, 0, 10);
for (let n = 0; n < count; n++) {
  const grant = new ConfinedFs().grantRead("/").grantWrite(dir);
  core.call("writer.save", grant, (root) =>
    root.writer.save({
      target: { cwd: dir, env: [["HOME", dir]], memoryDir: dir },
      memoryType: "user",
      name: `${prefix}-${n}`,
      description: `written by ${prefix}, number ${n}`,
      body: `Fact ${n} from ${prefix}.`,
      nowMs: 1_767_225_600_000n,
      utcOffsetMinutes: 0,
    }),
  );
}
