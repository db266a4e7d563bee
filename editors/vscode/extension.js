// The client: starts `nemesis-lsp` over stdio for .nem scripts and the YAML files of modules.
// Plain JavaScript, so there is nothing to build: `npm install` fetches the client library.
"use strict";

const path = require("path");
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function serverCommand() {
  const config = vscode.workspace.getConfiguration("nemesis.server");
  let command = config.get("command", "nemesis-lsp");
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (folder && command.includes("/") && !path.isAbsolute(command)) {
    command = path.join(folder.uri.fsPath, command);  // e.g. .venv/bin/nemesis-lsp
  }
  return { command, args: config.get("args", []), options: folder ? { cwd: folder.uri.fsPath } : {} };
}

function activate(context) {
  const server = serverCommand();
  client = new LanguageClient(
    "nemesis",
    "Nemesis rules",
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: "file", language: "nemesis" },
        { scheme: "file", language: "yaml", pattern: "**/rulesets/**/*.{yaml,yml}" },
        { scheme: "file", language: "yaml", pattern: "**/module.yaml" },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
