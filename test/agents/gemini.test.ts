import { defineAgentContract } from "./support/contract.js";

defineAgentContract("gemini");
