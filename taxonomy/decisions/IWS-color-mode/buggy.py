from keras.preprocessing.image import ImageDataGenerator
from keras.models import Sequential
from keras.layers import Conv2D, Flatten, Dense
side = 64
gen = ImageDataGenerator(rescale=1.0 / 255)
batches = gen.flow_from_directory("scans/train", target_size=(side, side), class_mode="categorical")
net = Sequential()
net.add(Conv2D(8, (3, 3), activation="relu", input_shape=(side, side, 1)))
net.add(Flatten())
net.add(Dense(4, activation="softmax"))
net.compile(loss="categorical_crossentropy", optimizer="adam")
net.fit_generator(batches, steps_per_epoch=20, epochs=5)
