// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs as root: it changes IRQ affinity, cgroups or another user's view of the kernel. Skipped where it cannot run, unless every test must run ({@link MachineRequirements}). */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("root")
@ExtendWith(MachineRequirements.class)
public @interface NeedsRoot {}
