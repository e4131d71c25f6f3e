import { defineAgentContract } from "./support/contract.js";

defineAgentContract("pi");
