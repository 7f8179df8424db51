/// The state of something loaded over the network, as one value a view can `switch` over.
///
/// The seed's `Loadable<T>` had `.loading` and `.error` without a value, so every refresh emptied
/// the map until the answer came (and a failed refresh left it empty). Here a refresh and a
/// failure keep the last value: ``loading(previous:)`` and ``failed(_:previous:)``. A view shows
/// ``value`` whatever the case, and a spinner or an error banner on top.
///
/// ```swift
/// switch model.nearbyLocations {
/// case .idle: EmptyView()
/// case .loading(let previous): Markers(previous ?? []).overlay(ProgressView())
/// case .loaded(let places): Markers(places)
/// case .failed(let error, let previous): Markers(previous ?? []).overlay(Banner(error.userMessage))
/// }
/// ```
public enum Loadable<Value: Sendable>: Sendable {
    /// Nothing requested yet.
    case idle
    /// A request is in flight; `previous` is the last loaded value, if any.
    case loading(previous: Value?)
    /// The latest request succeeded.
    case loaded(Value)
    /// The latest request failed; `previous` is the last loaded value, if any.
    case failed(AppError, previous: Value?)

    /// The value to show: the loaded value, or the previous one while refreshing or after a failure.
    public var value: Value? {
        switch self {
        case .idle: nil
        case .loading(let previous): previous
        case .loaded(let value): value
        case .failed(_, let previous): previous
        }
    }

    /// `true` while a request is in flight.
    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    /// The error of a failed request, otherwise `nil`.
    public var error: AppError? {
        if case .failed(let error, _) = self { return error }
        return nil
    }

    /// `true` while refreshing a value that is already on screen (the seed's suggested `.refreshing(T)`).
    public var isRefreshing: Bool {
        if case .loading(.some) = self { return true }
        return false
    }
}

extension Loadable: Equatable where Value: Equatable {}
extension Loadable: Hashable where Value: Hashable {}

extension Loadable: CustomStringConvertible {
    public var description: String {
        switch self {
        case .idle: "idle"
        case .loading(nil): "loading"
        case .loading(.some(let previous)): "loading(previous: \(previous))"
        case .loaded(let value): "loaded(\(value))"
        case .failed(let error, nil): "failed(\(error))"
        case .failed(let error, .some(let previous)): "failed(\(error), previous: \(previous))"
        }
    }
}
