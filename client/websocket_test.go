package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
)

func TestStreamCompletionsWebsocket(t *testing.T) {
	gotProtos := make(chan []string, 1)
	gotReq := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v2/commands/completions" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{SubprotocolAuth}})
		if err != nil {
			return
		}
		defer conn.CloseNow()
		gotProtos <- splitProtos(r.Header.Values("Sec-WebSocket-Protocol"))
		ctx := r.Context()
		_, req, err := conn.Read(ctx)
		if err != nil {
			return
		}
		gotReq <- string(req)
		conn.Write(ctx, websocket.MessageText, []byte(`{"completionResponse":{"Completion":{"value":{"commandId":"c1","status":{"code":0,"message":"","details":[]},
			"updateId":"u1","userId":"alice","actAs":["a::1"],"submissionId":"s","deduplicationPeriod":{"Empty":{}},"traceContext":null,"offset":9,
			"synchronizerTime":{"synchronizerId":"s::1","recordTime":"2026-07-24T11:59:02Z"},"paidTrafficCost":10}}}}`))
		conn.Write(ctx, websocket.MessageText, []byte(`{"completionResponse":{"OffsetCheckpoint":{"value":{"offset":10,"synchronizerTimes":[]}}}}`))
		conn.Write(ctx, websocket.MessageText, []byte(`{"code":"STALE_STREAM_AUTHORIZATION","cause":"rights changed","correlationId":null,"traceId":null,
			"context":{},"resources":[],"errorCategory":2,"grpcCodeValue":10,"retryInfo":"1 second","definiteAnswer":null}`))
		conn.Close(websocket.StatusNormalClosure, "")
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, StaticToken("T0K"))
	s, err := c.StreamCompletions(context.Background(), ledgerapi.CompletionStreamRequest{UserID: "alice", Parties: []string{"a::1"}, BeginExclusive: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if p := <-gotProtos; len(p) != 2 || p[0] != "daml.ws.auth" || p[1] != "jwt.token.T0K" {
		t.Errorf("subprotocols %q", p)
	}
	if r := <-gotReq; r != `{"userId":"alice","parties":["a::1"],"beginExclusive":8}` {
		t.Errorf("request frame %s", r)
	}
	el, err := s.Next(context.Background())
	if err != nil || el.Completion == nil || el.Offset() != 9 {
		t.Fatalf("first = %+v, %v", el, err)
	}
	el, err = s.Next(context.Background())
	if err != nil || el.OffsetCheckpoint == nil || el.Offset() != 10 {
		t.Fatalf("second = %+v, %v", el, err)
	}
	_, err = s.Next(context.Background())
	if ErrorID(err) != "STALE_STREAM_AUTHORIZATION" || !IsRetryable(err) {
		t.Fatalf("error frame = %v", err)
	}
	if _, err = s.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("after close: %v", err)
	}
}

func TestStreamCompletionsFallsBackWhenNotOffered(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c := newClient(t, srv.URL, nil)
	_, err := c.StreamCompletions(context.Background(), ledgerapi.CompletionStreamRequest{})
	if !errors.Is(err, ErrNoWebsocket) {
		t.Fatalf("err = %v", err)
	}
}
