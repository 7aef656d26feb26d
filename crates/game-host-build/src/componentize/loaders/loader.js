// The JavaScript runtime's loader: runs a script's module, which the host
// hands over at run time (`game:live/sources`), as if componentize-js had
// built it in.
//
// The module's `import ... from "game:engine/<interface>@<version>"` lines
// become constants bound to the runtime's own imports of those interfaces
// (any 0.2.x version: they only grow; a source with 0.1 imports never gets
// here, the host refuses it first, naming what to change), and its
// `export`s become what the loader's exports call: `entrypoint`,
// `onUpdate(clock)`, `onWake(clock, wakes)`, `saveState` and
// `restoreState`, each optional. The rewrite keeps every
// line where it was, so errors name the script's own lines.
//
// The package versions and the interface lists below are placeholders the
// host fills in before it builds the runtime, from the WIT it was built
// with (`game_host::guest::ENGINE_INTERFACES`): an interface added to the
// package is bound here with nothing to edit.

{{engine-imports}}
import { files, root } from "game:live/sources@{{live-version}}";

// Every interface of the package: those that hold only records and enums
// (`types`, `input`) have nothing to bind.
const INTERFACES = {
{{engine-interfaces}}
};

const IDENT = "[A-Za-z_$][\\w$]*";

function lineBreaks(text) {
  return "\n".repeat((text.match(/\n/g) || []).length);
}

function importOf(spec) {
  const found = INTERFACES[spec.replace(/@[^/@]*$/, "")];
  if (found === undefined) {
    throw new Error(`cannot import "${spec}": scripts import only game:engine interfaces and their game's types`);
  }
  return found;
}

// The module as a function body: imports made constants, exports
// collected into the object it returns.
function rewrite(text) {
  const exported = [];
  const fail = (line, message) => {
    throw Object.assign(new SyntaxError(message), { scriptLine: line });
  };
  const lineAt = (offset) => text.slice(0, offset).split("\n").length;
  let body = text.replace(
    /^[ \t]*import\s*([\s\S]*?)\s*from\s*(["'])([^"']+)\2[ \t]*;?/gm,
    (whole, what, _quote, spec, offset) => {
      const source = JSON.stringify(spec);
      if (INTERFACES[spec.replace(/@[^/@]*$/, "")] === undefined) {
        fail(lineAt(offset), `cannot import ${source}: scripts import only game:engine interfaces and their game's types`);
      }
      let binding;
      if (what.startsWith("*")) {
        binding = what.replace(/^\*\s*as\s+/, "");
      } else if (what.startsWith("{") && what.endsWith("}")) {
        binding = what.replace(new RegExp(`(${IDENT})\\s+as\\s+(${IDENT})`, "g"), "$1: $2");
      } else {
        fail(lineAt(offset), `default imports are not supported: import { ... } from ${source}`);
      }
      return `const ${binding.replace(/\n/g, " ")} = __import(${source});${lineBreaks(whole)}`;
    },
  );
  body = body.replace(
    new RegExp(`^([ \\t]*)export\\s+((?:async\\s+)?function\\s*\\*?\\s*|class\\s+|const\\s+|let\\s+|var\\s+)(${IDENT})`, "gm"),
    (_whole, indent, keyword, name) => {
      exported.push(name);
      return indent + keyword + name;
    },
  );
  body = body.replace(/^[ \t]*export\s*\{([^}]*)\}[ \t]*;?/gm, (whole, list) => {
    for (const item of list.split(",")) {
      const [local, as] = item.trim().split(/\s+as\s+/);
      if (local) exported.push(as ? `${as}: ${local}` : local);
    }
    return lineBreaks(whole);
  });
  const left = body.match(/^[ \t]*export\b/m);
  if (left) {
    fail(lineAt(body.indexOf(left[0])), "this form of export is not supported (export functions, classes or constants by name)");
  }
  return `${body}\n;return { ${exported.join(", ")} };`;
}

// The module as a function of its imports, made by the language's own
// compiler: the body starts on line 1, and `sourceURL` names the script's
// file, so errors and stacks name its lines.
function evaluate(body, path) {
  return (0, eval)(`(function (__import) {${body}\n})\n//# sourceURL=${root()}/${path}`);
}

function compileScript() {
  // A TypeScript module arrives with its types erased, lines kept.
  const module = files().find((file) => /\.m?[jt]s$/.test(file.path));
  if (!module) throw new Error("the script has no JavaScript module");
  const body = rewrite(module.text);
  return { path: module.path, make: evaluate(body, module.path) };
}

let script = null;
// The module `loader.prepare` compiled, not yet run (null if none, or if
// it did not compile: running it then reports why).
let prepared = null;

// The script's exports, running its module on first use.
function user() {
  if (script === null) {
    const compiled = prepared ?? compileScript();
    prepared = null;
    script = compiled.make(importOf);
  }
  return script;
}

export function entrypoint() {
  user().entrypoint?.();
}

export function onUpdate(clock) {
  user().onUpdate?.(clock);
}

export function onWake(clock, wakes) {
  user().onWake?.(clock, wakes);
}

export function saveState() {
  const save = user().saveState;
  return save ? save() : undefined;
}

export function restoreState(state) {
  const script = user();
  if (script.restoreState) {
    script.restoreState(state);
  } else {
    script.entrypoint?.();
  }
}

export const loader = {
  prepare() {
    if (script === null && prepared === null) {
      try {
        prepared = compileScript();
      } catch {
        prepared = null;
      }
    }
  },
  check() {
    try {
      compileScript();
      return undefined;
    } catch (error) {
      const line = error.scriptLine ?? error.lineNumber;
      if (error instanceof SyntaxError && line !== undefined) {
        return `${root()}/${files()[0].path}:${line}: SyntaxError: ${error.message}`;
      }
      return `${error}`;
    }
  },
};
