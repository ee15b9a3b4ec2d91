package demoapp.sessionless

import kotlinx.coroutines.*

// An agent loop whose conversations are coroutines on one dispatcher thread (trial33 06; newSingleThreadContext is the
// deterministic stand-in for a Dispatchers.Default worker, which interleaves conversations' coroutines the same way).
object Tools {
    fun lookup(sessionId: String, customer: String): String = "customer $customer"
    fun newsletter(sessionId: String, email: String): String = "sent to $email"
    // a tool that performs an erasure: the erasure happens inside this conversation's tool call
    fun closeAccount(sessionId: String, email: String): String { Privacy.forget(email); return "closed $email" }
    // a suspend tool that erases after it resumes: meanwhile another conversation's call ran on the thread
    suspend fun closeLater(sessionId: String, email: String): String { delay(50); Privacy.forget(email); return "closed later $email" }
}

object Privacy {
    fun forget(subject: String) { println("app: forgot $subject") }
}

@OptIn(DelicateCoroutinesApi::class, ExperimentalCoroutinesApi::class)
fun main() {
    val one = newSingleThreadContext("agent-loop")
    runBlocking(one) {
        // c1 runs a tool call first; then c2, on the same thread, erases someone between its calls; then c1 sends a newsletter
        val c1 = launch { println("app: c1 " + Tools.lookup("c1", "ada")); yield(); yield(); println("app: c1 " + Tools.newsletter("c1", "dan@example.com")) }
        val c2 = launch { Privacy.forget("bob@example.com"); yield(); println("app: c2 " + Tools.newsletter("c2", "carol@example.com")) }
        joinAll(c1, c2)
        // c3 erases through one of its tools, then sends a newsletter
        launch { println("app: c3 " + Tools.closeAccount("c3", "eve@example.com")); yield(); println("app: c3 " + Tools.newsletter("c3", "eve@example.com")) }.join()
        // c4's suspend tool suspends; c5 runs a tool call on the thread; c4's tool resumes and erases; then c5 sends a newsletter
        val c4 = launch { println("app: c4 " + Tools.closeLater("c4", "fay@example.com")) }
        val c5 = launch { println("app: c5 " + Tools.lookup("c5", "gus")) }
        joinAll(c4, c5)
        launch { println("app: c5 " + Tools.newsletter("c5", "gus@example.com")) }.join()
    }
    one.close()
}
