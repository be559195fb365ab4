// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** Pins threads to CPU 1, so this process must be allowed a second CPU. Skipped where it cannot run, unless every test must run ({@link MachineRequirements}). */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("second-cpu")
@ExtendWith(MachineRequirements.class)
public @interface NeedsSecondCpu {}
