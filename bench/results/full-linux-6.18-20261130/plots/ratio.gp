set terminal pngcairo size 1280,420 font 'sans,9'
set output 'ratio.png'
set title "tps ratio B/A (patched:auto / stock), 95% Fieller interval"
set ylabel 'B/A'
set grid ytics
set xrange [-0.5:11.5]
set xtics rotate by -30
set arrow from -0.5,1 to 11.5,1 nohead dt 2
plot 'ratio.dat' using 1:3:4:5:xtic(2) with yerrorbars pt 7 notitle
