package engine

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/signer"
	"google.golang.org/protobuf/proto"
)

// remake re-encodes a mutated copy of a prepared transaction and hashes it,
// as a malicious or careless client would before signing.
func remake(t *testing.T, p *Prepared, mutate func(pt *damlpb.PreparedTransaction)) *Prepared {
	t.Helper()
	pt := proto.Clone(p.PreparedTransaction).(*damlpb.PreparedTransaction)
	mutate(pt)
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	out := &Prepared{PreparedTransaction: pt, Bytes: raw, Scheme: p.Scheme}
	if sum, err := hashing.Sum(raw, p.Scheme); err == nil {
		out.Hash = sum
	}
	return out
}

func TestExecuteAcceptsSignedCreate(t *testing.T) {
	for _, scheme := range []ledgerapi.HashingSchemeVersion{ledgerapi.HashingSchemeVersionV2, ledgerapi.HashingSchemeVersionV3} {
		t.Run(string(scheme), func(t *testing.T) {
			f := newFixture(t)
			req := prepareReq(f.alice, createCmd(iouTemplate, iouArgs(f.alice, f.bob)))
			req.HashingSchemeVersion = scheme
			p, err := f.eng.Prepare(context.Background(), req, "user1")
			if err != nil {
				t.Fatal(err)
			}
			o, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
			if err != nil {
				t.Fatal(err)
			}
			if o.Rejection != nil || o.Transaction == nil {
				t.Fatalf("outcome %+v", o)
			}
			if o.UserID != "user1" || o.CommandID != "cmd-1" || o.SubmissionID != "sub-1" || len(o.ActAs) != 1 || o.ActAs[0] != f.alice {
				t.Errorf("completion fields %+v", o)
			}
			tx := o.Transaction
			create := p.PreparedTransaction.Transaction.Nodes[0].GetV1().GetCreate()
			// The prepared create has a local id; at commit it gets its
			// suffix (ca11: the generic model).
			if len(tx.Created) != 1 || tx.Created[0].ContractID[:66] != create.ContractId || len(create.ContractId) != 66 ||
				len(tx.Created[0].ContractID) != 138 || tx.Created[0].ContractID[66:70] != "ca11" || !tx.Created[0].CreatedAt.Equal(testNow.Truncate(time.Microsecond)) ||
				len(tx.Archived) != 0 || len(tx.Inputs) != 0 || !tx.EffectiveAt.Equal(testNow.Truncate(time.Microsecond)) {
				t.Fatalf("transaction %+v", tx)
			}
			arg, err := unmarshalProtoValue(tx.Created[0].Argument)
			if err != nil || !proto.Equal(arg, create.Argument) {
				t.Fatalf("stored argument %v, %v", arg, err)
			}
			at := f.ledger.commit(t, o, testNow.Add(time.Second))
			flat := o.Events.Transaction(at, ledgerapi.TransactionShapeACSDelta, nil)
			if flat.ExternalTransactionHash == nil || *flat.ExternalTransactionHash != hashing.Hex(p.Hash) {
				t.Errorf("external hash %v, want %s", flat.ExternalTransactionHash, hashing.Hex(p.Hash))
			}
		})
	}
}

func TestExecuteRejections(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	prep := func(mut ...func(*ledgerapi.PrepareSubmissionRequest)) *Prepared {
		req := prepareReq(f.alice, createCmd(iouTemplate, iouArgs(f.alice, f.bob)))
		for _, m := range mut {
			m(&req)
		}
		p, err := f.eng.Prepare(ctx, req, "user1")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	signWith := func(p *Prepared, party string, k *signer.Key, edit func(*ledgerapi.Signature)) ledgerapi.ExecuteSubmissionRequest {
		req := executeReq(p, party, k)
		if edit != nil {
			edit(&req.PartySignatures.Signatures[0].Signatures[0])
		}
		return req
	}
	localKey, _ := signer.FromSeed(bytes.Repeat([]byte{7}, 32))
	unknown := "ghost::" + localKey.Fingerprint()

	cases := []struct {
		name string
		req  func() ledgerapi.ExecuteSubmissionRequest
		user string
		want string
	}{
		{"valid", func() ledgerapi.ExecuteSubmissionRequest { return executeReq(prep(), f.alice, f.aliceK) }, "user1", ""},
		{"legacy RAW format", func() ledgerapi.ExecuteSubmissionRequest {
			return signWith(prep(), f.alice, f.aliceK, func(s *ledgerapi.Signature) { s.Format = ledgerapi.SignatureFormatRaw })
		}, "user1", ""},
		{"missing user", func() ledgerapi.ExecuteSubmissionRequest { return executeReq(prep(), f.alice, f.aliceK) }, "", "MISSING_FIELD"},
		{"missing prepared transaction", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			r.PreparedTransaction = nil
			return r
		}, "user1", "MISSING_FIELD"},
		{"garbage bytes", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			r.PreparedTransaction = []byte{0xff, 0xff, 0xff}
			return r
		}, "user1", "INVALID_FIELD"},
		{"invalid submission id", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			r.SubmissionID = "bad*id"
			return r
		}, "user1", "INVALID_FIELD"},
		{"missing scheme", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			r.HashingSchemeVersion = ""
			return r
		}, "user1", "MISSING_FIELD"},
		{"unspecified scheme", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			r.HashingSchemeVersion = ledgerapi.HashingSchemeVersionUnspecified
			return r
		}, "user1", "INVALID_FIELD"},
		{"wrong scheme (V3 for a V2 hash)", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			r.HashingSchemeVersion = ledgerapi.HashingSchemeVersionV3
			return r
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"missing signature", func() ledgerapi.ExecuteSubmissionRequest { return executeReq(prep(), f.alice, nil) }, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"signature of another party only", func() ledgerapi.ExecuteSubmissionRequest {
			return executeReq(prep(), f.bob, f.aliceK)
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"signature by another key", func() ledgerapi.ExecuteSubmissionRequest { return executeReq(prep(), f.alice, f.otherK) }, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"wrong signedBy", func() ledgerapi.ExecuteSubmissionRequest {
			return signWith(prep(), f.alice, f.aliceK, func(s *ledgerapi.Signature) { s.SignedBy = f.otherK.Fingerprint() })
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"malformed signedBy", func() ledgerapi.ExecuteSubmissionRequest {
			return signWith(prep(), f.alice, f.aliceK, func(s *ledgerapi.Signature) { s.SignedBy = "abc" })
		}, "user1", "INVALID_FIELD"},
		{"unspecified format", func() ledgerapi.ExecuteSubmissionRequest {
			return signWith(prep(), f.alice, f.aliceK, func(s *ledgerapi.Signature) { s.Format = ledgerapi.SignatureFormatUnspecified })
		}, "user1", "INVALID_FIELD"},
		{"DER format", func() ledgerapi.ExecuteSubmissionRequest {
			return signWith(prep(), f.alice, f.aliceK, func(s *ledgerapi.Signature) { s.Format = ledgerapi.SignatureFormatDER })
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"ECDSA algorithm", func() ledgerapi.ExecuteSubmissionRequest {
			return signWith(prep(), f.alice, f.aliceK, func(s *ledgerapi.Signature) { s.SigningAlgorithmSpec = ledgerapi.SigningAlgorithmSpecECDSASHA256 })
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"flipped signature bit", func() ledgerapi.ExecuteSubmissionRequest {
			return signWith(prep(), f.alice, f.aliceK, func(s *ledgerapi.Signature) { s.Signature[5] ^= 1 })
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"more signatures than keys", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			s := r.PartySignatures.Signatures[0].Signatures[0]
			r.PartySignatures.Add(f.alice, s)
			return r
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"tampered: one byte of the command id", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			r.PreparedTransaction = bytes.Replace(append([]byte(nil), r.PreparedTransaction...), []byte("cmd-1"), []byte("cmd-2"), 1)
			return r
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"tampered: one party", func() ledgerapi.ExecuteSubmissionRequest {
			p := prep()
			q := remake(t, p, func(pt *damlpb.PreparedTransaction) {
				pt.Transaction.Nodes[0].GetV1().GetCreate().Stakeholders = []string{f.alice}
			})
			r := executeReq(p, f.alice, f.aliceK)
			r.PreparedTransaction = q.Bytes
			return r
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"tampered: one value", func() ledgerapi.ExecuteSubmissionRequest {
			p := prep()
			q := remake(t, p, func(pt *damlpb.PreparedTransaction) {
				fields := pt.Transaction.Nodes[0].GetV1().GetCreate().Argument.GetRecord().Fields
				for _, fl := range fields {
					if fl.Label == "count" {
						fl.Value = &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: 4}}
					}
				}
			})
			r := executeReq(p, f.alice, f.aliceK)
			r.PreparedTransaction = q.Bytes
			return r
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"tampered and re-signed: signatory outside the model", func() ledgerapi.ExecuteSubmissionRequest {
			q := remake(t, prep(), func(pt *damlpb.PreparedTransaction) {
				c := pt.Transaction.Nodes[0].GetV1().GetCreate()
				c.Signatories = sortedSet(map[string]bool{f.alice: true, f.bob: true})
			})
			return executeReq(q, f.alice, f.aliceK)
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"tampered and re-signed: contract id not from the seed", func() ledgerapi.ExecuteSubmissionRequest {
			q := remake(t, prep(), func(pt *damlpb.PreparedTransaction) {
				pt.Transaction.Nodes[0].GetV1().GetCreate().ContractId = "00" + strings.Repeat("d", 64)
			})
			return executeReq(q, f.alice, f.aliceK)
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"re-signed with an unknown party in the argument", func() ledgerapi.ExecuteSubmissionRequest {
			q := remake(t, prep(), func(pt *damlpb.PreparedTransaction) {
				c := pt.Transaction.Nodes[0].GetV1().GetCreate()
				for _, fl := range c.Argument.GetRecord().Fields {
					if fl.Label == "owner" {
						fl.Value = &damlpb.Value{Sum: &damlpb.Value_Party{Party: unknown}}
					}
				}
				c.Stakeholders = sortedSet(map[string]bool{f.alice: true, unknown: true})
			})
			return executeReq(q, f.alice, f.aliceK)
		}, "user1", "UNKNOWN_INFORMEES"},
		{"re-signed: another synchronizer", func() ledgerapi.ExecuteSubmissionRequest {
			q := remake(t, prep(), func(pt *damlpb.PreparedTransaction) { pt.Metadata.SynchronizerId = "other::1220ab" })
			return executeReq(q, f.alice, f.aliceK)
		}, "user1", "INVALID_PRESCRIBED_SYNCHRONIZER_ID"},
		{"re-signed: two roots", func() ledgerapi.ExecuteSubmissionRequest {
			p := prep()
			p2 := prep()
			q := remake(t, p, func(pt *damlpb.PreparedTransaction) {
				n := proto.Clone(p2.PreparedTransaction.Transaction.Nodes[0]).(*damlpb.DamlTransaction_Node)
				n.NodeId = "1"
				s := proto.Clone(p2.PreparedTransaction.Transaction.NodeSeeds[0]).(*damlpb.DamlTransaction_NodeSeed)
				s.NodeId = 1
				pt.Transaction.Roots = append(pt.Transaction.Roots, "1")
				pt.Transaction.Nodes = append(pt.Transaction.Nodes, n)
				pt.Transaction.NodeSeeds = append(pt.Transaction.NodeSeeds, s)
			})
			return executeReq(q, f.alice, f.aliceK)
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"acting party without keys", func() ledgerapi.ExecuteSubmissionRequest {
			req := prepareReq(f.bob, createCmd(iouTemplate, `{}`))
			p, err := f.eng.Prepare(ctx, req, "user1")
			if err != nil {
				t.Fatal(err)
			}
			return executeReq(p, f.bob, f.aliceK)
		}, "user1", "FAILED_TO_EXECUTE_TRANSACTION"},
		{"negative dedup offset", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			n := int64(-1)
			r.DeduplicationPeriod = ledgerapi.DeduplicationPeriod{Offset: &n}
			return r
		}, "user1", "NEGATIVE_OFFSET"},
		{"negative dedup duration", func() ledgerapi.ExecuteSubmissionRequest {
			r := executeReq(prep(), f.alice, f.aliceK)
			d := ledgerapi.Duration{Seconds: -5}
			r.DeduplicationPeriod = ledgerapi.DeduplicationPeriod{Duration: &d}
			return r
		}, "user1", "INVALID_FIELD"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := f.eng.Execute(ctx, c.req(), c.user, f.ledger.lookupKeys)
			if got := errorID(err); got != c.want {
				t.Fatalf("got %q (%v), want %q", got, err, c.want)
			}
			if err == nil && (o.Transaction == nil || o.Rejection != nil) {
				t.Fatalf("accepted without a transaction: %+v", o)
			}
		})
	}
}

func TestExecuteTamperedSignatureMessage(t *testing.T) {
	f := newFixture(t)
	p, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(iouTemplate, `{}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.eng.Execute(context.Background(), executeReq(p, f.alice, f.otherK), "user1", f.ledger.lookupKeys)
	if err == nil || !strings.Contains(err.Error(), hashing.Hex(p.Hash)) || !strings.Contains(err.Error(), f.alice) {
		t.Fatalf("error %v should name the party and the hash to sign", err)
	}
}

func TestExecuteMaxRecordTime(t *testing.T) {
	for _, scheme := range []ledgerapi.HashingSchemeVersion{ledgerapi.HashingSchemeVersionV2, ledgerapi.HashingSchemeVersionV3} {
		t.Run(string(scheme), func(t *testing.T) {
			f := newFixture(t)
			req := prepareReq(f.alice, createCmd(iouTemplate, `{}`))
			req.HashingSchemeVersion = scheme
			mrt := ledgerapi.NewTimestamp(testNow.Add(time.Minute))
			req.MaxRecordTime = &mrt
			p, err := f.eng.Prepare(context.Background(), req, "user1")
			if err != nil {
				t.Fatal(err)
			}
			// In time: accepted, and the store is told the limit.
			o, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
			if err != nil || o.Transaction == nil || !o.Transaction.MaxRecordTime.Equal(mrt.Time) {
				t.Fatalf("in time: %+v, %v", o, err)
			}
			// Too late: an asynchronous rejection.
			f.now = testNow.Add(2 * time.Minute)
			o, err = f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
			if err != nil {
				t.Fatalf("late execute gave a synchronous error %v", err)
			}
			if o.Transaction != nil || o.Rejection == nil || o.Rejection.Code != "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED" {
				t.Fatalf("late execute: %+v", o)
			}
			if o.CommandID != "cmd-1" || o.SubmissionID != "sub-1" || len(o.ActAs) != 1 {
				t.Fatalf("rejection lacks completion fields: %+v", o)
			}
			if st := o.Rejection.Status(); st.Code == 0 || !strings.Contains(st.Message, "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED") {
				t.Fatalf("status %+v", st)
			}
		})
	}
}

func TestExecuteDedupOverMaximumIsRejection(t *testing.T) {
	f := newFixture(t)
	p, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(iouTemplate, `{}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	r := executeReq(p, f.alice, f.aliceK)
	d := ledgerapi.DurationOf(8 * 24 * time.Hour)
	r.DeduplicationPeriod = ledgerapi.DeduplicationPeriod{Duration: &d}
	o, err := f.eng.Execute(context.Background(), r, "user1", f.ledger.lookupKeys)
	if err != nil || o.Rejection == nil || o.Rejection.Code != "INVALID_DEDUPLICATION_PERIOD" || o.Rejection.Context["longest_duration"] == "" {
		t.Fatalf("got %+v, %v", o, err)
	}
}

func TestExecuteExercise(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cid := f.createContract(iouTemplate, iouArgs(f.alice, f.bob))

	// A nonconsuming choice uses the contract without archiving it.
	p, err := f.eng.Prepare(ctx, prepareReq(f.alice, exerciseCmd(iouTemplate, cid, "Observe", `{}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Transaction.Archived) != 0 || len(o.Transaction.Inputs) != 1 || o.Transaction.Inputs[0] != cid {
		t.Fatalf("nonconsuming: archived %v inputs %v", o.Transaction.Archived, o.Transaction.Inputs)
	}
	f.ledger.commit(t, o, testNow)

	// Prepare a consuming exercise, then archive the contract behind its back.
	stale, err := f.eng.Prepare(ctx, prepareReq(f.alice, exerciseCmd(iouTemplate, cid, "Transfer", `{"to":"`+f.bob+`"}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	p, err = f.eng.Prepare(ctx, prepareReq(f.alice, exerciseCmd(iouTemplate, cid, "Archive", `{}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	o, err = f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Transaction.Archived) != 1 || o.Transaction.Archived[0] != cid || len(o.Transaction.Inputs) != 0 || len(o.Transaction.Created) != 0 {
		t.Fatalf("consuming: %+v", o.Transaction)
	}
	f.ledger.commit(t, o, testNow)

	_, err = f.eng.Execute(ctx, executeReq(stale, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if got := errorID(err); got != "CONTRACT_NOT_ACTIVE" {
		t.Fatalf("stale input contract: got %q (%v)", got, err)
	}
	// Prepare no longer finds it either.
	_, err = f.eng.Prepare(ctx, prepareReq(f.alice, exerciseCmd(iouTemplate, cid, "Transfer", `{}`)), "user1")
	if got := errorID(err); got != "CONTRACT_NOT_FOUND" {
		t.Fatalf("archived contract at prepare: got %q (%v)", got, err)
	}
}

func TestExecuteTwiceRefusesExistingContract(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	p, err := f.eng.Prepare(ctx, prepareReq(f.alice, createCmd(iouTemplate, `{}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	f.ledger.commit(t, o, testNow)
	_, err = f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if got := errorID(err); got != "FAILED_TO_EXECUTE_TRANSACTION" || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second execute: %q (%v)", got, err)
	}
}

func TestExecuteThreshold(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	second, _ := signer.FromSeed(bytes.Repeat([]byte{9}, 32))
	f.ledger.keys[f.alice] = append(f.ledger.keys[f.alice], ed25519.PublicKey(second.Public().Raw()))
	keys := func(ctx context.Context, p string) ([]ed25519.PublicKey, int, error) {
		k, _, err := f.ledger.lookupKeys(ctx, p)
		return k, 2, err
	}
	p, err := f.eng.Prepare(ctx, prepareReq(f.alice, createCmd(iouTemplate, `{}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	one := executeReq(p, f.alice, f.aliceK)
	if _, err := f.eng.Execute(ctx, one, "user1", keys); errorID(err) != "FAILED_TO_EXECUTE_TRANSACTION" {
		t.Fatalf("one of two signatures: %v", err)
	}
	s2 := second.SignHash(p.Hash)
	one.PartySignatures.Add(f.alice, ledgerapi.Signature{Format: ledgerapi.SignatureFormatConcat, Signature: s2.Signature,
		SignedBy: s2.SignedBy, SigningAlgorithmSpec: ledgerapi.SigningAlgorithmSpecEd25519})
	if _, err := f.eng.Execute(ctx, one, "user1", keys); err != nil {
		t.Fatalf("two of two signatures: %v", err)
	}
}
