#if LOCSIM_TSAN
import LocationCore

// ThreadSanitizer builds only: this module's Mutex is a lock TSan can see (docs/sanitizers.md).
typealias Mutex<Value> = TSanVisibleMutex<Value>
#endif
