import { defineAgentContract } from "./support/contract.js";

// PyPI openhands 1.16.0 needs Python 3.12 and cannot be installed here: this runs the built-in
// template against test/agents/fakes/openhands.mjs, which follows the real CLI's headless mode.
defineAgentContract("openhands");
