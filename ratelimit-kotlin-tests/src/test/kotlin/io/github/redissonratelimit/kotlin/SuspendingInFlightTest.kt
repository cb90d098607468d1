package io.github.redissonratelimit.kotlin

import io.github.redissonratelimit.annotation.RateLimit
import io.github.redissonratelimit.annotation.RateLimitAlgorithm
import io.github.redissonratelimit.interceptor.RateLimitAdvisor
import io.github.redissonratelimit.interceptor.RateLimitInterceptor
import io.github.redissonratelimit.key.KeyExpressionParser
import io.github.redissonratelimit.limiter.RateLimitBackend
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend
import io.github.redissonratelimit.local.InstanceCount
import io.github.redissonratelimit.local.LocalFallback
import io.github.redissonratelimit.local.LocalOutagePolicy
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource
import io.github.redissonratelimit.redis.RedissonRateLimitBackend
import io.github.redissonratelimit.test.redis.InFlightPermits
import io.github.redissonratelimit.test.redis.RealRedisExtension
import io.github.redissonratelimit.test.redis.RedisEndpoint
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.redisson.api.RedissonClient
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator
import org.springframework.beans.factory.config.BeanDefinitionCustomizer
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import java.util.function.Supplier

/**
 * A `suspend` method limited in flight holds its permit while its coroutine runs, and gives it back when the
 * coroutine is cancelled mid-call. A permit back within [InFlightPermits.GIVEN_BACK_WITHIN] was given back, not
 * left to expire (30 s lease, renewed while held).
 */
@ExtendWith(RealRedisExtension::class)
class SuspendingInFlightTest {

    open class Exports {

        @RateLimit(key = "'export:' + #tenant", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        open suspend fun export(tenant: String, started: CompletableDeferred<Unit>): String {
            started.complete(Unit)
            awaitCancellation()
        }

        @RateLimit(key = "'export:' + #tenant", rate = 1, algorithm = RateLimitAlgorithm.IN_FLIGHT)
        open suspend fun quick(tenant: String): String = "exported for $tenant"
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

    private fun exports(): Exports {
        val ctx = AnnotationConfigApplicationContext()
        ctx.registerBean(DefaultAdvisorAutoProxyCreator::class.java, Supplier { DefaultAdvisorAutoProxyCreator() })
        ctx.registerBean(RedissonClient::class.java, Supplier { redis.newRedissonClient() },
            BeanDefinitionCustomizer { it.destroyMethodName = "shutdown" })
        val source = AnnotationRateLimitOperationSource(KeyExpressionParser(ctx.beanFactory))
        ctx.registerBean(RateLimitAdvisor::class.java, Supplier {
            val redisson = ctx.getBean(RedissonClient::class.java)
            RateLimitAdvisor(source, RateLimitInterceptor(source, Supplier<RateLimitBackend> {
                // the layers the auto-configuration puts above the backend: the wait, then the outage policy
                LocalOutagePolicy(WaitingRateLimitBackend(RedissonRateLimitBackend(redisson)),
                    LocalFallback(InstanceCount.fixed(1, 0), 10_000))
            }))
        })
        ctx.registerBean(Exports::class.java, Supplier { Exports() })
        ctx.refresh()
        context = ctx
        return ctx.getBean(Exports::class.java)
    }

    @Test
    fun aCoroutineCancelledMidCallGivesItsPermitBack(): Unit = runBlocking {
        val exports = exports()
        val permits = InFlightPermits(redis)
        val started = CompletableDeferred<Unit>()

        val call = launch { exports.export("acme", started) }
        started.await()
        assertThat(permits.held("export:acme")).`as`("held while the coroutine runs").isEqualTo(1L)
        call.cancelAndJoin()

        permits.awaitGivenBack("export:acme")
        assertThat(exports.quick("acme")).`as`("the next call passes").isEqualTo("exported for acme")
    }
}
