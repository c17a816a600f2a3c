// The two V2 hashers that ship with @canton-network/wallet-sdk, behind one
// function shape: (base64 PreparedTransaction) => Promise<hex hash>.
//
//   sdk         SDK.createOffline().utils.hash.preparedTransaction(b64)
//               (the wallet SDK's own encoder, src/wallet/namespace/utils/hash)
//   visualizer  hashPreparedTransaction(b64, "hex") from
//               @canton-network/core-tx-visualizer, a dependency of the SDK
//               that the SDK also re-exports decodePreparedTransaction from.

import { SDK } from "@canton-network/wallet-sdk";
import { hashPreparedTransaction } from "@canton-network/core-tx-visualizer";

// A log adapter that drops everything: the SDK's default (pino) and its
// console adapter would write to stdout, between the hashes.
const silent = { log() {} };

export function makeHasher(impl) {
  switch (impl) {
    case "sdk": {
      const sdk = SDK.createOffline({ logAdapter: silent });
      return async (b64) => (await sdk.utils.hash.preparedTransaction(b64)).toHex();
    }
    case "visualizer":
      return (b64) => hashPreparedTransaction(b64, "hex");
    default:
      throw new Error(`unknown --impl ${JSON.stringify(impl)}: use sdk or visualizer`);
  }
}

export function parseImpl(argv) {
  let impl = "sdk";
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--impl") {
      impl = argv[++i];
    } else if (a.startsWith("--impl=")) {
      impl = a.slice("--impl=".length);
    } else {
      rest.push(a);
    }
  }
  return { impl, rest };
}
