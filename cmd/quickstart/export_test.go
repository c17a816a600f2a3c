package quickstart

// Run is quickstartRun, for the external tests (which build the root
// command, and so cannot be in this package).
var Run = quickstartRun
