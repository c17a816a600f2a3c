// Ed25519 keys and Canton's hashes, computed here independently of the node
// (see docs/topology.md for the byte layouts), so the script can check what
// the node answers instead of trusting it.

import { createHash, generateKeyPairSync, sign } from 'node:crypto';

// Hash purposes Canton prefixes (4-byte big-endian) before hashing.
const PURPOSE_TOPOLOGY_TRANSACTION = 11;
const PURPOSE_PUBLIC_KEY_FINGERPRINT = 12;
const PURPOSE_MULTI_TOPOLOGY_TRANSACTION = 55;

// The multihash header of a SHA-256: code 0x12, length 0x20.
const MULTIHASH_SHA256 = Buffer.from([0x12, 0x20]);

function int32(n) {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function sha256(...parts) {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

// newKey makes a fresh Ed25519 key pair; raw is the 32-byte public key.
export function newKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, raw: spki.subarray(spki.length - 32) };
}

// fingerprint is Canton's key fingerprint: "1220" + hex SHA-256 of the
// purpose-prefixed raw key.
export function fingerprint(raw) {
  return '1220' + sha256(int32(PURPOSE_PUBLIC_KEY_FINGERPRINT), raw).toString('hex');
}

// signEd25519 signs bytes as they are (Ed25519 hashes internally).
export function signEd25519(privateKey, bytes) {
  return sign(null, bytes, privateKey);
}

// topologyTransactionHash is the 34-byte multihash of one serialized
// (wrapped) topology transaction.
export function topologyTransactionHash(serialized) {
  return Buffer.concat([MULTIHASH_SHA256, sha256(int32(PURPOSE_TOPOLOGY_TRANSACTION), serialized)]);
}

// multiHash combines the transaction hashes: distinct hashes sorted by their
// bytes, counted, each length-prefixed, under purpose 55.
export function multiHash(serializedTransactions) {
  const hashes = [...new Map(serializedTransactions.map((t) => {
    const h = topologyTransactionHash(t);
    return [h.toString('hex'), h];
  })).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, h]) => h);
  const parts = [int32(PURPOSE_MULTI_TOPOLOGY_TRANSACTION), int32(hashes.length)];
  for (const h of hashes) parts.push(int32(h.length), h);
  return Buffer.concat([MULTIHASH_SHA256, sha256(...parts)]);
}

// unwrapVersioned reads Canton's UntypedVersionedMessage (field 1 data
// bytes, field 2 version) and returns { data, version }.
export function unwrapVersioned(bytes) {
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      if (i >= bytes.length) throw new Error('truncated varint in versioned wrapper');
      const b = bytes[i++];
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
      shift += 7;
    }
  };
  let data = null;
  let version = null;
  while (i < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (field === 1 && wire === 2) {
      const n = varint();
      data = bytes.subarray(i, i + n);
      i += n;
    } else if (field === 2 && wire === 0) {
      version = varint();
    } else {
      throw new Error(`unexpected field ${field} (wire type ${wire}) in versioned wrapper`);
    }
  }
  if (data === null) throw new Error('versioned wrapper has no data field');
  return { data, version };
}
