// SPDX-License-Identifier: Apache-2.0
/**
 * What a machine offers numaspread and what stands in its way: kernel features, backends, privileges and the
 * other managers of IRQs, each as a {@link io.numaspread.doctor.Finding} with how it was found and what it needs.
 */
package io.numaspread.doctor;
