// Package display renders what ledger shows to people: a prepared
// transaction for the reviewer who has to decide whether to sign it.
//
// Rendering is two steps. Summarize turns a decoded PreparedTransaction and
// its locally recomputed hash into a Review: plain data (nodes as a tree,
// decoded Daml values, parties, deadlines, hash, warnings) that scripts get
// with -o json. RenderText draws a Review as a tree for a terminal, with
// colour only when asked for.
//
// Nothing in a prepared transaction is trusted for display: every string from
// it is escaped before it reaches a terminal, so a template name or a text
// value cannot move the cursor, recolour the screen or hide characters.
package display
