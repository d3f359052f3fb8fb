@_exported import FolioBinaryStore
// The umbrella module an embedding app imports: the model layer and the object graph.
@_exported import FolioDiagnostics
@_exported import FolioGraph
@_exported import FolioMigration
@_exported import FolioModel
@_exported import FolioQuery
@_exported import FolioSQLiteStore
@_exported import FolioStores
@_exported import FolioUndo
@_exported import FolioXMLStore
