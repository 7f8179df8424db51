#if PostGIS
import ArgumentParser
import Foundation
import LocationCore
import LocationPostGIS
import Logging

/// `--postgres URL`: where a PostGIS place database is, for `index import`, `index stats` and `serve`.
enum PostgresTarget {
    /// The URL with its password from the URL, `PGPASSWORD`, or the password file
    /// (`PGPASSFILE`, else `~/.pgpass`), as libpq looks for it. Never printed with the password.
    static func url(_ text: String, flag: String = "--postgres") throws -> PostgresURL {
        let environment = ProcessInfo.processInfo.environment
        // $HOME first, as libpq looks (a container's or CI job's HOME), then the account's home.
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? UserAccount()?.home
        let passFile = (environment["PGPASSFILE"] ?? home.map { $0 + "/.pgpass" }).flatMap(passwordFile(at:))
        do {
            return try PostgresURL(parsing: text, environment: environment, passwordFile: passFile)
        } catch where error.code == .invalidURL {
            throw ValidationError("\(flag): \(error.description) (expected postgres://user@host:port/database)")
        } catch {
            throw ValidationError("\(flag): \(error.description)")
        }
    }

    /// The password file at `path`, or nil as libpq has none: no such file, not a regular file,
    /// not readable. (Its permissions are checked when a password is taken from it.)
    private static func passwordFile(at path: String) -> PostgresURL.PasswordFile? {
        let manager = FileManager.default
        guard let attributes = try? manager.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let data = manager.contents(atPath: path)
        else { return nil }
        return PostgresURL.PasswordFile(
            path: path, contents: String(decoding: data, as: UTF8.self),
            permissions: (attributes[.posixPermissions] as? NSNumber)?.intValue)
    }

    /// Checks `--postgres URL` at parse time (a build without the PostGIS trait refuses it here).
    static func validate(_ text: String, flag: String = "--postgres") throws {
        _ = try url(text, flag: flag)
    }

    /// A logger for the connection pool's background messages (connection failures), on standard error.
    static func logger(_ label: String, level: Logger.Level = .error) -> Logger {
        var logger = Logger(label: label, factory: { label in StreamLogHandler.standardError(label: label) })
        logger.logLevel = level
        return logger
    }

    /// The command's `locsim: error:` report for a PostGIS failure, with a hint for its cause:
    /// what the server said (its SQLSTATE) where it said something, else the usual causes.
    static func failure(_ error: PostGISError, url: PostgresURL) -> CommandFailure {
        let guide = "(docs/guides/postgis.md)"
        let hint: String
        switch (error.code, error.sqlState) {
        case (_, "3D000"?):
            hint = "create it (createdb -h \(word(url.host)) -p \(url.port) -U \(word(url.user)) \(word(url.database))), "
                + "or name an existing database in the URL's path \(guide)"
        case (_, "28P01"?):
            hint = "check the password for \(url.user): the URL's, PGPASSWORD, or ~/.pgpass (PGPASSFILE) \(guide)"
        case (_, "28000"?):
            hint = "check the user name (the URL's, else PGUSER), and that the server's pg_hba.conf lets it in from here \(guide)"
        case (_, "42501"?) where error.message.contains("extension"):
            hint = "PostGIS is created once per database by a role that may (usually a superuser): "
                + "psql -h \(word(url.host)) -p \(url.port) -d \(word(url.database)) -c 'CREATE EXTENSION postgis'; then import again \(guide)"
        case (_, "42501"?):
            hint = "the database's owner grants \(url.user) what the statement needs (CREATE on the schema to import, "
                + "SELECT on locsim_place and locsim_tile to read) \(guide)"
        case (_, "42703"?):
            hint = "a column locsim makes is gone: 'locsim index stats --postgres URL --verify' lists how the tables differ \(guide)"
        case (.unavailable, _) where error.parameter == "password":
            hint = "give \(url.user)'s password as libpq takes it: PGPASSWORD in the environment, or a line "
                + "host:port:database:user:password in ~/.pgpass (chmod 600), never in a URL that others see \(guide)"
        case (.unavailable, _) where error.parameter == "sslmode":
            hint = "the URL's sslmode (and sslrootcert) and the server's TLS must agree: the server's ssl setting and "
                + "certificate in its postgresql.conf, or another sslmode (the TLS section of docs/guides/postgis.md)"
        case (.unavailable, _):
            hint = "check the URL's host and port (\(url.endpoint)): is PostgreSQL running there, listening on TCP, and does it accept this login? \(guide)"
        case (.schema, _):
            hint = "import places with 'locsim index import FILE --postgres \(url.textWithoutPassword)' \(guide)"
        default:
            hint = "see docs/guides/postgis.md"
        }
        return CommandFailure(error.description, hint: hint)
    }

    /// `text` as one word of a shell command a hint suggests: as it is when the shell reads it so,
    /// else in single quotes (a database named `my places`).
    static func word(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-:@/")
        let plain = !text.isEmpty && text.allSatisfy(safe.contains)
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
#else
/// This build has no PostGIS support (`swift build --disable-default-traits`): every
/// `--postgres` is refused at parse time, saying how to get it.
enum PostgresTarget {
    static func validate(_ text: String, flag: String = "--postgres") throws {
        throw BuildTraits.missing("PostGIS", for: flag)
    }
}
#endif  // PostGIS
