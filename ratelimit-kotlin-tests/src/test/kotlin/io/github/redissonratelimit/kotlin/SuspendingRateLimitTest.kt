package io.github.redissonratelimit.kotlin

import io.github.redissonratelimit.RateLimitExceededException
import io.github.redissonratelimit.annotation.RateLimit
import io.github.redissonratelimit.interceptor.RateLimitAdvisor
import io.github.redissonratelimit.interceptor.RateLimitInterceptor
import io.github.redissonratelimit.key.KeyExpressionParser
import io.github.redissonratelimit.limiter.AcquireRequest
import io.github.redissonratelimit.limiter.Decision
import io.github.redissonratelimit.limiter.RateLimitBackend
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend
import io.github.redissonratelimit.local.InstanceCount
import io.github.redissonratelimit.local.LocalFallback
import io.github.redissonratelimit.local.LocalOutagePolicy
import io.github.redissonratelimit.naming.LimiterNaming
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource
import io.github.redissonratelimit.redis.RedissonRateLimitBackend
import io.github.redissonratelimit.test.redis.HeldPermits
import io.github.redissonratelimit.test.redis.RealRedisExtension
import io.github.redissonratelimit.test.redis.RedisEndpoint
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.newSingleThreadContext
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.redisson.api.RedissonClient
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator
import org.springframework.beans.factory.config.BeanDefinitionCustomizer
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.function.Supplier

/** Kotlin `suspend` methods are limited on their coroutine: no thread waits for the decision. */
@ExtendWith(RealRedisExtension::class)
class SuspendingRateLimitTest {

    open class Orders {

        @RateLimit(key = "'order:' + #user", rate = 3, window = "1m")
        open suspend fun submit(user: String): String {
            yield()
            return "submitted $user"
        }

        @RateLimit(key = "'quote:' + #user", rate = 1, window = "1m", fallback = "busy")
        open suspend fun quote(user: String): String = "quote for $user"

        open suspend fun busy(user: String, rejection: RateLimitExceededException): String {
            yield()
            return "busy $user, retry in ${rejection.retryAfterSeconds}s"
        }

        @RateLimit(key = "'wait:' + #user", rate = 1, window = "1s", waitTimeout = "5s")
        open suspend fun patient(user: String): String = "served $user"

        @RateLimit(key = "'plain:' + #user", rate = 1, window = "1m", fallback = "plainBusy")
        open suspend fun plain(user: String): String = "plain $user"

        open fun plainBusy(user: String): String = "plain busy $user"
    }

    private lateinit var redis: RedisEndpoint
    private var context: AnnotationConfigApplicationContext? = null

    @BeforeEach
    fun setUp(redis: RedisEndpoint) {
        this.redis = redis
        redis.flushAll()
    }

    @AfterEach
    fun close() {
        context?.close()
    }

    private fun orders(backend: ((RedissonClient) -> RateLimitBackend)? = null): Orders {
        val ctx = AnnotationConfigApplicationContext()
        ctx.registerBean(DefaultAdvisorAutoProxyCreator::class.java, Supplier { DefaultAdvisorAutoProxyCreator() })
        ctx.registerBean(RedissonClient::class.java, Supplier { redis.newRedissonClient() },
            BeanDefinitionCustomizer { it.destroyMethodName = "shutdown" })
        val source = AnnotationRateLimitOperationSource(KeyExpressionParser(ctx.beanFactory))
        ctx.registerBean(RateLimitAdvisor::class.java, Supplier {
            val redisson = ctx.getBean(RedissonClient::class.java)
            RateLimitAdvisor(source, RateLimitInterceptor(source, Supplier<RateLimitBackend> {
                // the layers the auto-configuration puts above the backend: the wait, then the outage policy
                LocalOutagePolicy(WaitingRateLimitBackend(backend?.invoke(redisson) ?: RedissonRateLimitBackend(redisson)),
                    LocalFallback(InstanceCount.fixed(1, 0), 10_000))
            }))
        })
        ctx.registerBean(Orders::class.java, Supplier { Orders() })
        ctx.refresh()
        context = ctx
        return ctx.getBean(Orders::class.java)
    }

    @Test
    fun aSuspendMethodGetsItsRateAndThenTheRejection(): Unit = runBlocking {
        val orders = orders()

        val results = (1..5).map { async { runCatching { orders.submit("ann") } } }.awaitAll()

        assertThat(results.count { it.isSuccess }).isEqualTo(3)
        assertThat(results.mapNotNull { it.exceptionOrNull() }).hasSize(2)
            .allSatisfy { assertThat(it).isInstanceOf(RateLimitExceededException::class.java) }
        assertThat(results.first { it.isSuccess }.getOrThrow()).isEqualTo("submitted ann")
        // Redis's own count: three grants in the window (a slice's grants share a member)
        assertThat(HeldPermits.of(redis, LimiterNaming.permitsKey(LimiterNaming().limiterName("order:ann"))))
            .isEqualTo(3L)
    }

    @Test
    fun aSuspendFallbackAnswersTheRejection(): Unit = runBlocking {
        val orders = orders()

        assertThat(orders.quote("bob")).isEqualTo("quote for bob")
        assertThat(orders.quote("bob")).startsWith("busy bob, retry in ")
    }

    @Test
    fun aFallbackThatDoesNotSuspendServesToo(): Unit = runBlocking {
        val orders = orders()

        assertThat(orders.plain("cy")).isEqualTo("plain cy")
        assertThat(orders.plain("cy")).isEqualTo("plain busy cy")
    }

    /**
     * The decision is held open until another coroutine on the same single thread answers it. If the interceptor
     * blocked that thread while waiting, the answering coroutine could not run: a watchdog thread then answers after
     * 20 s so that the test ends, and the assertion sees that the coroutine was not the one that answered.
     */
    @OptIn(ExperimentalCoroutinesApi::class, kotlinx.coroutines.DelicateCoroutinesApi::class)
    @Test
    fun theDecisionDoesNotBlockTheCoroutinesThread(): Unit = runBlocking {
        val pending = CompletableFuture<Decision>()
        val asked = CompletableDeferred<Unit>()
        val orders = orders { _ ->
            object : RateLimitBackend {
                override fun acquire(request: AcquireRequest): CompletionStage<Decision> {
                    asked.complete(Unit)
                    return pending
                }
            }
        }
        val watchdog = Thread {
            try {
                Thread.sleep(20_000)
                pending.complete(Decision.allow())
            } catch (ignored: InterruptedException) {
            }
        }.apply { isDaemon = true; start() }
        newSingleThreadContext("one-thread").use { oneThread ->
            val (answeredByTheCoroutine, answer) = withContext(oneThread) {
                val call = async { orders.submit("dee") }
                asked.await()
                val answered = pending.complete(Decision.allow()) // on the thread the call's decision waits on
                answered to call.await()
            }
            assertThat(answeredByTheCoroutine).`as`("the coroutine answered while the decision was pending").isTrue()
            assertThat(answer).isEqualTo("submitted dee")
        }
        watchdog.interrupt()
    }

    @Test
    fun waitTimeoutWaitsOnTheCoroutineForThePermit(): Unit = runBlocking {
        val orders = orders()

        assertThat(orders.patient("fay")).isEqualTo("served fay")
        assertThat(orders.patient("fay")).`as`("the second call waits for the permit to come back").isEqualTo("served fay")
        assertThat(redis.command("ZCARD", LimiterNaming.permitsKey(LimiterNaming().limiterName("wait:fay"))))
            .`as`("one grant in the window: the second, made once the first had left it (and was pruned)").isEqualTo(1L)
    }

    @Test
    fun aRejectionWithoutFallbackIsThrownIntoTheCoroutine() {
        val orders = orders()
        runBlocking { repeat(3) { orders.submit("eve") } }

        assertThatThrownBy { runBlocking { orders.submit("eve") } }
            .isInstanceOf(RateLimitExceededException::class.java)
    }
}
