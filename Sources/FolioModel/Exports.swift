// A model's errors and warnings name their place with FolioDiagnostics' InputLocation, so
// whoever imports FolioModel gets it too.
@_exported import FolioDiagnostics
