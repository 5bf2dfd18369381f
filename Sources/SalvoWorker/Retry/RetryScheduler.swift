/// Batched, bounded retries: notifications that must wait (429, 5xx, lost connections) are held
/// per app and due-time window and re-dispatched together, so a wave of 503s during a campaign
/// turns into a few batches rather than thousands of timers. What the worker cannot hold — over
/// its memory bound, too far in the future, or at shutdown — is handed to the retry topic.
///
/// The logic is ``StateMachine``; the worker owns one, drives it with its clock and executes its
/// actions.
public enum RetryScheduler {}
