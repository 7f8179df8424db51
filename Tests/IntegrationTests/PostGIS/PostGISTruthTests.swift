import Foundation
import LocSimTestHelpers
import LocationCore
import LocationIndex
import LocationPostGIS
import Testing

/// `locsim_place` is the only truth (issue #30): what anyone writes to it with SQL is what the
/// next query answers, and imports write only what changed.
@Suite(.timeLimit(.minutes(1))) struct PostGISTruthTests {
    static let places = """
        id,name,lat,lon,kind
        a,Alpha,35.6812,139.7671,shop
        b,Beta,35.6813,139.7672,
        c,Gamma,35.6814,139.7673,park
        """
    static let tokyo = try! Coordinate(latitude: 35.6812, longitude: 139.7671)
    static let osaka = try! Coordinate(latitude: 34.7025, longitude: 135.4959)

    /// A fresh server whose store imported ``places`` (`a.csv` in a temporary directory).
    static func withImportedPlaces(_ body: (PostgresServer, PostGISPlaceStore, String) async throws -> Void) async throws {
        try await withPostGIS { server, store in
            try await withScratchFolder { directory in
                try places.write(toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
                try await store.importPlaces(fromFile: directory + "/a.csv")
                try await body(server, store, directory)
            }
        }
    }

    static func ids(_ store: PostGISPlaceStore, near center: Coordinate, within radius: Double = 1_000) async throws -> [String] {
        try await store.places(near: center, within: radius).map(\.place.id)
    }

    /// Every place served, over the whole sphere.
    static func everything(_ store: PostGISPlaceStore) async throws -> [String] {
        try await store.places(near: tokyo, within: Sphere.halfCircumference).map(\.place.id).sorted()
    }

    @Test func insertUpdateAndDeleteMadeWithSQLAreServedByTheNextQuery() async throws {
        try await Self.withImportedPlaces { server, store, _ in
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "b", "c"])

            try await server.psql(
                "INSERT INTO locsim_place (id, name, kind, lat_e7, lon_e7) VALUES ('e', 'Epsilon', '', 356812000, 1397671000)")
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "e", "b", "c"])

            try await server.psql("UPDATE locsim_place SET lat_e7 = 347025000, lon_e7 = 1354959000 WHERE id = 'b'")
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "e", "c"])
            #expect(try await Self.ids(store, near: Self.osaka) == ["b"])

            try await server.psql("UPDATE locsim_place SET name = 'Gamma renamed' WHERE id = 'c'")
            #expect(try await store.places(near: Self.tokyo, within: 1_000).last?.place.name == "Gamma renamed")

            try await server.psql("DELETE FROM locsim_place WHERE id = 'a'")
            #expect(try await Self.ids(store, near: Self.tokyo) == ["e", "c"])

            let statistics = try await store.statistics()
            #expect(statistics.placeCount == 3)
            #expect(try await Self.everything(store) == ["b", "c", "e"])

            try await server.psql("TRUNCATE locsim_place")
            #expect(try await Self.everything(store).isEmpty)
        }
    }

    /// An SQL edit moved a place; an import of one unrelated place into either of its tiles
    /// must not bring it back at its old position (it used to be answered twice).
    @Test func anImportAfterAnSQLEditAnswersEveryPlaceOnce() async throws {
        try await Self.withImportedPlaces { server, store, directory in
            try await server.psql("UPDATE locsim_place SET lat_e7 = 347025000, lon_e7 = 1354959000 WHERE id = 'b'")
            try "id,name,lat,lon\nx,Xi,35.6815,139.7674\ny,Ypsilon,34.7026,135.4960\n".write(
                toFile: directory + "/b.csv", atomically: true, encoding: .utf8)
            let report = try await store.importPlaces(fromFile: directory + "/b.csv")
            #expect(report.inserted == 2)
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "c", "x"])
            #expect(try await Self.ids(store, near: Self.osaka) == ["b", "y"])
            let all = try await Self.everything(store)
            #expect(all == ["a", "b", "c", "x", "y"])
            #expect(try await store.statistics().placeCount == all.count)
        }
    }

    /// Re-importing a file writes only the rows that differ (counted by a row trigger), and an
    /// SQL edit to a place the file does not mention survives the import.
    @Test func anImportWritesOnlyTheRowsThatChanged() async throws {
        try await Self.withImportedPlaces { server, store, directory in
            try await server.psql(
                """
                CREATE TABLE written (id text NOT NULL);
                CREATE FUNCTION count_written() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO written VALUES (NEW.id); RETURN NULL; END $$;
                CREATE TRIGGER count_written AFTER INSERT OR UPDATE ON locsim_place FOR EACH ROW EXECUTE FUNCTION count_written();
                """)
            let same = try await store.importPlaces(fromFile: directory + "/a.csv")
            #expect(same.inserted == 0)
            #expect(same.updated == 0)
            try Self.places.replacingOccurrences(of: "Gamma", with: "Gamma 2").write(
                toFile: directory + "/b.csv", atomically: true, encoding: .utf8)
            let changed = try await store.importPlaces(fromFile: directory + "/b.csv")
            #expect(changed.inserted == 0)
            #expect(changed.updated == 1)
            // psql fails (and so does this) unless exactly c was written, once.
            try await server.psql(
                """
                DO $$ BEGIN
                    IF (SELECT array_agg(id) FROM written) IS DISTINCT FROM ARRAY['c'] THEN
                        RAISE EXCEPTION 'rows written: %', (SELECT array_agg(id) FROM written);
                    END IF;
                END $$
                """)
            #expect(try await store.places(near: Self.tokyo, within: 1_000).last?.place.name == "Gamma 2")
        }
    }

    @Test func importReplaceDeletesThePlacesTheFileDoesNotHold() async throws {
        try await Self.withImportedPlaces { server, store, directory in
            try await server.psql(
                "INSERT INTO locsim_place (id, name, kind, lat_e7, lon_e7) VALUES ('s', 'From SQL', '', 347025000, 1354959000)")
            try "id,name,lat,lon\nb,Beta,35.6813,139.7672\nd,Delta,35.6816,139.7675\n".write(
                toFile: directory + "/b.csv", atomically: true, encoding: .utf8)
            let report = try await store.importPlaces(fromFile: directory + "/b.csv", replace: true)
            #expect(report.inserted == 1)
            #expect(report.updated == 0)
            #expect(report.deleted == 3)
            #expect(report.placeCount == 2)
            #expect(try await Self.everything(store) == ["b", "d"])
            #expect(try await store.statistics().placeCount == 2)
            // A header-only file (a failed upstream export) does not empty the database.
            try "id,name,lat,lon\n".write(toFile: directory + "/none.csv", atomically: true, encoding: .utf8)
            await #expect {
                try await store.importPlaces(fromFile: directory + "/none.csv", replace: true)
            } throws: { error in
                (error as? IndexError)?.parameter == "replace" && "\(error)".contains("holds no places, and --replace would delete every place")
            }
            #expect(try await Self.everything(store) == ["b", "d"])
        }
    }

    /// A database of the previous schema (version 2: no triggers) whose tiles missed an SQL edit
    /// is upgraded by the next prepare: triggers made, every tile rebuilt.
    @Test func upgradeFromVersion2RebuildsStaleTilesAndAddsTheTriggers() async throws {
        try await Self.withImportedPlaces { server, store, _ in
            try await server.psql(
                """
                DROP TRIGGER locsim_place_tiles_insert ON locsim_place;
                DROP TRIGGER locsim_place_tiles_update ON locsim_place;
                DROP TRIGGER locsim_place_tiles_delete ON locsim_place;
                DROP TRIGGER locsim_place_tiles_truncate ON locsim_place;
                DROP FUNCTION locsim_place_retile();
                UPDATE locsim_meta SET value = '2' WHERE key = 'version';
                UPDATE locsim_place SET lat_e7 = 347025000, lon_e7 = 1354959000 WHERE id = 'b';
                """)
            // Version 2 served the stale tiles.
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "b", "c"])
            try await store.prepareSchema()
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "c"])
            #expect(try await Self.ids(store, near: Self.osaka) == ["b"])
            try await server.psql("DELETE FROM locsim_place WHERE id = 'c'")
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a"])
            try await server.psql(
                """
                DO $$ BEGIN
                    IF (SELECT value FROM locsim_meta WHERE key = 'version') <> '4' THEN RAISE EXCEPTION 'not version 4'; END IF;
                END $$
                """)
        }
    }

    @Test("verifyTiles finds the tiles a change with the triggers off left stale, and rebuildTiles repairs them")
    func tilesCheckedAndRebuilt() async throws {
        try await Self.withImportedPlaces { server, store, _ in
            #expect(try await store.verifyTiles() == TileCheck(tiles: 1, disagreeing: 0))
            // Rows applied as logical replication and pg_restore --disable-triggers apply them:
            // no trigger fires, so a's and b's tiles are not rebuilt.
            try await server.psql("""
                BEGIN; SET LOCAL session_replication_role = replica;
                UPDATE locsim_place SET lat_e7 = 347025000, lon_e7 = 1354959000 WHERE id = 'b';
                DELETE FROM locsim_place WHERE id = 'a';
                COMMIT
                """)
            #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "b", "c"], "stale: what the check is for")
            // Tokyo's tile differs, Osaka's is missing.
            #expect(try await store.verifyTiles() == TileCheck(tiles: 2, disagreeing: 2))
            // A tile no place fills any more counts too.
            try await server.psql("INSERT INTO locsim_tile VALUES (1, ''::bytea)")
            #expect(try await store.verifyTiles() == TileCheck(tiles: 2, disagreeing: 3))
            #expect(try await store.rebuildTiles() == 2)
            #expect(try await store.verifyTiles() == TileCheck(tiles: 2, disagreeing: 0))
            #expect(try await Self.ids(store, near: Self.tokyo) == ["c"])
            #expect(try await Self.ids(store, near: Self.osaka) == ["b"])
            let textbook = try await store.textbookPlaces(near: Self.tokyo, within: Sphere.halfCircumference).map(\.place.id)
            #expect(try await store.places(near: Self.tokyo, within: Sphere.halfCircumference).map(\.place.id) == textbook)
        }
    }

    @Test("options=-c search_path keeps the tables in a team's schema; a psql edit there, under another search_path, is served")
    func placesInTheirOwnSchema() async throws {
        try await withPostGIS { server, _ in
            try await server.psql("CREATE EXTENSION postgis; CREATE SCHEMA team")
            // The team's tables go in its schema even when public already holds locsim's (the
            // guide's order: the public import first).
            try await PostGISPlaceStore.withRunning(try PostgresURL(parsing: server.url), clock: ContinuousClock(), logger: quietLogger) { store in
                try await withScratchFolder { directory in
                    try "id,name,lat,lon\np,P,35.6812,139.7671\n".write(toFile: directory + "/p.csv", atomically: true, encoding: .utf8)
                    try await store.importPlaces(fromFile: directory + "/p.csv")
                }
            }
            let url = try PostgresURL(parsing: server.url + "&options=-c%20search_path%3Dteam,public")
            #expect(url.options == "-c search_path=team,public")
            try await PostGISPlaceStore.withRunning(url, clock: ContinuousClock(), logger: quietLogger) { store in
                try await withScratchFolder { directory in
                    try Self.places.write(toFile: directory + "/a.csv", atomically: true, encoding: .utf8)
                    try await store.importPlaces(fromFile: directory + "/a.csv")
                }
                #expect(try await server.psqlValues("SELECT count(*) FROM team.locsim_place") == "3")
                #expect(try await server.psqlValues("SELECT count(*) FROM public.locsim_place") == "1")
                // psql's search_path is the default ("$user", public): the trigger still rebuilds team's tiles.
                try await server.psql("UPDATE team.locsim_place SET lat_e7 = 347025000, lon_e7 = 1354959000 WHERE id = 'b'")
                #expect(try await Self.ids(store, near: Self.tokyo) == ["a", "c"])
                #expect(try await Self.ids(store, near: Self.osaka) == ["b"])
                #expect(try await store.verifyTiles().disagreeing == 0)
            }
        }
    }

    /// A version-3 database (its trigger function followed the writer's search_path) gets the
    /// pinned function from the next prepare.
    @Test func upgradeFromVersion3PinsTheTriggerSearchPath() async throws {
        try await Self.withImportedPlaces { server, store, _ in
            try await server.psql("ALTER FUNCTION locsim_place_retile() RESET search_path; UPDATE locsim_meta SET value = '3' WHERE key = 'version'")
            try await store.prepareSchema()
            let settings = try await server.psqlValues("SELECT array_to_string(proconfig, ',') FROM pg_proc WHERE proname = 'locsim_place_retile'")
            #expect(settings == "search_path=public")
            #expect(try await server.psqlValues("SELECT value FROM locsim_meta WHERE key = 'version'") == "4")
        }
    }
}
