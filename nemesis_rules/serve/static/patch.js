// RFC 6902 JSON Patch for the `patch` messages of the `nemesis serve` protocol (docs/protocol.md):
// applyPatch(doc, ops) returns the patched copy of `doc` (`doc` itself is left as it was) or
// throws an Error naming the operation that does not apply. No build step, no dependency.
"use strict";

function applyPatch(doc, ops) {
  let root = JSON.parse(JSON.stringify(doc));  // a failing patch leaves the caller's document whole
  for (const op of ops) root = applyOperation(root, op);
  return root;
}

function applyOperation(root, op) {
  switch (op.op) {
    case "add": return addAt(root, op.path, clone(op.value));
    case "remove": return removeAt(root, op.path).root;
    case "replace": return addAt(removeAt(root, op.path).root, op.path, clone(op.value));
    case "move": {
      if (op.path.startsWith(op.from + "/")) throw new Error(`move: ${op.path} is inside ${op.from}`);
      const taken = removeAt(root, op.from);
      return addAt(taken.root, op.path, taken.value);
    }
    case "copy": return addAt(root, op.path, clone(valueAt(root, op.from)));
    case "test":
      if (!sameJson(valueAt(root, op.path), op.value)) throw new Error(`test failed at ${op.path}`);
      return root;
    default: throw new Error(`unknown operation ${JSON.stringify(op.op)}`);
  }
}

function clone(value) {
  if (value === undefined) throw new Error("an operation lacks its value");
  return JSON.parse(JSON.stringify(value));
}

// "/a/b~1c" -> ["a", "b/c"]
function tokens(path) {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new Error(`a path starts with "/": ${path}`);
  return path.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function hasOwn(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function arrayIndex(array, token, forAdd) {
  if (forAdd && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`not an array index: ${token}`);
  const index = Number(token);
  if (index > array.length || (!forAdd && index === array.length)) throw new Error(`index ${index} is out of range`);
  return index;
}

function child(container, token) {
  if (Array.isArray(container)) return container[arrayIndex(container, token, false)];
  if (container !== null && typeof container === "object" && hasOwn(container, token)) return container[token];
  throw new Error(`no member ${token}`);
}

function valueAt(root, path) {
  return tokens(path).reduce(child, root);
}

// The container holding the path's last token, and that token.
function parentOf(root, path) {
  const parts = tokens(path);
  const last = parts.pop();
  const parent = parts.reduce(child, root);
  if (parent === null || typeof parent !== "object") throw new Error(`no container at ${path}`);
  return { parent, last };
}

function addAt(root, path, value) {
  if (path === "") return value;
  const { parent, last } = parentOf(root, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
  else parent[last] = value;
  return root;
}

function removeAt(root, path) {
  if (path === "") return { root: null, value: root };
  const { parent, last } = parentOf(root, path);
  if (Array.isArray(parent)) return { root, value: parent.splice(arrayIndex(parent, last, false), 1)[0] };
  if (!hasOwn(parent, last)) throw new Error(`no member ${last}`);
  const value = parent[last];
  delete parent[last];
  return { root, value };
}

function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => hasOwn(b, k) && sameJson(a[k], b[k]));
}

if (typeof module !== "undefined") module.exports = { applyPatch };
