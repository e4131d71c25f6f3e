import { defineAgentContract } from "./support/contract.js";

defineAgentContract("opencode");
