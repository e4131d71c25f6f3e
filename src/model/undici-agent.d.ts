// undici's Agent by its own file (see transport.ts), typed as the package types it.
declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}
