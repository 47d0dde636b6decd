"use strict";
// The login form: says when a login was refused, and takes the page asked for along.
const q = new URLSearchParams(location.search);
if (q.has("failed")) document.getElementById("failed").classList.remove("hidden");
document.getElementById("next").value = q.get("next") === "/clock" ? "/clock" : "/";
